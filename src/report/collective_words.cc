#include "hloscope/report/collective_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

// "an all-gather", "a collective-permute".
std::string WithArticle(std::string_view noun) {
  bool vowel = !noun.empty() && std::string_view("aeiou").find(noun.front()) != std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", noun);
}

}  // namespace

std::string CollectiveGroupText(const CollectiveFinding& c) {
  std::string axes;
  if (!c.mesh_axes.empty()) {
    std::vector<std::string> quoted;
    for (const std::string& a : c.mesh_axes) quoted.push_back("'" + Shown(a) + "'");
    axes = fmt::format(" (mesh ax{} {})", c.mesh_axes.size() == 1 ? "is" : "es", fmt::join(quoted, ", "));
  }
  if (c.family == CollectiveFamily::kCollectivePermute) return "pairs of devices" + axes;
  if (c.spans_all_devices) return fmt::format("all {} devices{}", c.group_size, axes);
  if (c.num_groups > 1) return fmt::format("{} groups of {} devices{}", c.num_groups, c.group_size, axes);
  return fmt::format("{} devices{}", c.group_size, axes);
}

WordArgs CollectiveWords(const CollectiveFinding& c) {
  const CollectiveCauseFacts& f = c.cause;
  WordArgs w;
  w.Set("collective", std::string(c.instruction->name()))
      .Set("family", std::string(CollectiveFamilyName(c.family)))
      .Set("a_family", WithArticle(CollectiveFamilyName(c.family)))
      .Set("group", CollectiveGroupText(c))
      .Set("primitive", Shown(f.primitive))
      .Set("shape", c.shape ? c.shape->ToString(/*print_layout=*/false) : "?")
      .Set("value", ValueText(f.value))
      .Set("per_execution", HumanBytes(c.bytes))
      .Set("consumer", f.consumer.instruction ? InstructionAtText(f.consumer) : "?")
      .Set("producer", f.producer.instruction ? std::string(f.producer.instruction->name()) : "?")
      .Set("loop", c.enclosing_loops.empty() ? "?" : std::string(c.enclosing_loops.front()->name()))
      .Set("line", c.source ? SourceText(c.source) : std::string("no line"));
  if (f.producer.instruction && f.producer.source) w.Set("line", SourceText(f.producer.source));
  if (f.consumer.instruction && f.consumer.source && f.cause == CollectiveCause::kReshard)
    w.Set("line", SourceText(f.consumer.source));
  w.Flag("in_loop", !c.enclosing_loops.empty()).Flag("scatter", f.from_scatter);
  return w;
}

namespace {

// "split 8×1", "replicated".
std::string SplitText(const std::vector<int64_t>& shards) {
  bool whole = std::all_of(shards.begin(), shards.end(), [](int64_t t) { return t == 1; });
  if (shards.empty() || whole) return "replicated";
  return fmt::format("split {}", fmt::join(shards, "×"));
}

std::string WhereText(const CollectiveCauseFacts::Origin& o) {
  if (o.operand_parameter) {
    if (!o.parameter_sharding_given) return fmt::format("argument {}", *o.operand_parameter);
    return fmt::format("argument {}, {}", *o.operand_parameter,
                       *o.parameter_sharding_given ? "sharded so by the caller" : "as XLA chose");
  }
  return o.operand.source ? SourceText(o.operand.source) : std::string("no line");
}

}  // namespace

std::string CollectiveOriginText(const CollectiveCauseFacts::Origin& o) {
  std::string consumer = Shown(o.consumer.instruction->name());
  std::string where = o.consumer.source ? SourceText(o.consumer.source) : std::string("no line");
  std::string operand = fmt::format("{} ({}) is {}", Shown(o.operand.instruction->name()), WhereText(o),
                                    SplitText(o.operand_shards));
  std::string why;
  if (o.consumer_is_output && o.output_sharding_given)
    why = *o.output_sharding_given ? " as out_shardings ask" : " as XLA chose";
  if (o.propagated_to.instruction) {
    // The sharding reached the op that needs the re-shard by propagation.
    std::string to =
        fmt::format("{} ({})", Shown(o.propagated_to.instruction->name()),
                    o.propagated_to.source ? SourceText(o.propagated_to.source) : std::string("no line"));
    std::string asks = o.consumer_is_constraint ? fmt::format("with_sharding_constraint {} ({}) asks for {}",
                                                              consumer, where, SplitText(o.consumer_shards))
                                                : fmt::format("the output {} ({}) is {}{}", consumer, where,
                                                              SplitText(o.consumer_shards), why);
    return fmt::format("before partitioning, {}, and XLA propagated that back to {}, whose operand {}", asks,
                       to, operand);
  }
  if (o.consumer_is_constraint)
    return fmt::format("before partitioning, with_sharding_constraint {} ({}) asks for {}; its operand {}",
                       consumer, where, SplitText(o.consumer_shards), operand);
  if (o.consumer_is_output) {
    return fmt::format("before partitioning, the output {} ({}) is {}{}; its operand {}", consumer, where,
                       SplitText(o.consumer_shards), why, operand);
  }
  return fmt::format("before partitioning, {} ({}) is {} and its operand {}", consumer, where,
                     SplitText(o.consumer_shards), operand);
}

std::string CollectiveCauseDetail(const CollectiveFinding& c) {
  const CollectiveRuleEntry* row = EntryOf(c.cause.rule);
  std::string origin;
  if (c.cause.before_partitioning) origin = "; " + CollectiveOriginText(*c.cause.before_partitioning);
  if (!row)
    return fmt::format("{} over {}; no rule explains it{}", WithArticle(CollectiveFamilyName(c.family)),
                       CollectiveGroupText(c), origin);
  return FillTemplate(row->detail, CollectiveWords(c)) + origin;
}

std::string CollectiveCauseHint(const CollectiveFinding& c) {
  // A with_sharding_constraint that splits a value otherwise than the
  // values it comes from: the partitioner re-shards to honour it. Dropping
  // it removed the collectives (tests/python/test_answer_programs.py), and
  // sharding the argument as it asks did where the constraint reads the
  // argument itself (tools/gen_reshard_origin_fixtures.py's fixed variants).
  if (const auto& o = c.cause.before_partitioning; o && o->consumer_is_constraint) {
    std::string where = o->consumer.source ? SourceText(o->consumer.source)
                                           : std::string(Shown(o->consumer.instruction->name()));
    std::string argument = o->operand_parameter && !o->propagated_to.instruction
                               ? fmt::format("pass argument {} split {} (in_shardings), ",
                                             *o->operand_parameter, fmt::join(o->consumer_shards, "×"))
                               : "";
    return fmt::format(
        "the with_sharding_constraint at {} asks for {} where the values it comes from are {}: {}drop the "
        "constraint, or constrain to the sharding those values have",
        where, SplitText(o->consumer_shards), SplitText(o->operand_shards), argument);
  }
  const CollectiveRuleEntry* row = EntryOf(c.cause.rule);
  return row ? FillTemplate(row->hint, CollectiveWords(c)) : "";
}

std::string CollectiveSummaryLine(const CollectiveFinding& c) {
  return fmt::format("{} {} {} {} × {} = {} per device per call", c.instruction->name(),
                     CollectiveFamilyName(c.family), c.shape ? c.shape->ToString(false) : "?",
                     HumanBytes(c.bytes), ExecutionsText(c.executions, c.executions_upper_bound),
                     HumanBytes(c.total_bytes));
}

std::string GatheredByText(const CollectiveFinding& c) {
  return fmt::format("{} gathers the whole {} for it: {} per device × {} = {} per call (see COLLECTIVES)",
                     c.instruction->name(), c.shape ? c.shape->ToString(false) : "?", HumanBytes(c.bytes),
                     ExecutionsText(c.executions, c.executions_upper_bound), HumanBytes(c.total_bytes));
}

std::string ParameterShardingText(const ParameterFinding& p) {
  const ParameterSharding& s = *p.sharding;
  if (s.replicated) return fmt::format("replicated on every device: {}", Shown(s.text));
  std::vector<std::string> tiles, dims;
  for (int64_t t : s.shards_per_dim) tiles.push_back(std::to_string(t));
  for (int64_t d : s.global_dims) dims.push_back(std::to_string(d));
  return fmt::format("sharded {} of global {}[{}] ({}): {}", fmt::join(tiles, "×"),
                     PrimitiveTypeName(p.parameter->shape().element_type), fmt::join(dims, ","),
                     HumanBytes(p.global_bytes), Shown(s.text));
}

std::string SpmdText(const SpmdFacts& s) {
  if (s.devices() <= 1) return "";
  std::string how =
      s.replica_count > 1 && s.num_partitions > 1
          ? fmt::format("replica_count={}, num_partitions={}", s.replica_count, s.num_partitions)
      : s.num_partitions > 1 ? fmt::format("num_partitions={}", s.num_partitions)
                             : fmt::format("replica_count={}", s.replica_count);
  std::string mesh;
  if (!s.mesh_axes.empty()) {
    std::vector<std::string> axes;
    for (const auto& [name, size] : s.mesh_axes) axes.push_back(fmt::format("'{}'={}", Shown(name), size));
    mesh = fmt::format(", mesh {}", fmt::join(axes, " "));
  }
  return fmt::format("{} devices ({}){}", s.devices(), how, mesh);
}

}  // namespace hloscope
