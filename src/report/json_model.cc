#include "hloscope/report/json_model.h"

#include <fmt/format.h>

#include "hloscope/report/collective_words.h"
#include "hloscope/report/donation_words.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/version.h"

namespace hloscope {
namespace {

Json IndexJson(const ShapeIndex& index) {
  Json j = Json::array();
  for (int64_t i : index) j.push_back(i);
  return j;
}

Json NullIfEmpty(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json Refs(const std::vector<const HloInstruction*>& instrs) {
  Json j = Json::array();
  for (const HloInstruction* i : instrs) j.push_back(RefJson(i));
  return j;
}

}  // namespace

Json Str(std::string_view s) { return Json(std::string(s)); }

Json JsonEnvelope(std::string_view command) {
  Json doc;
  doc["schema_version"] = kJsonSchemaVersion;
  doc["tool"] = "hloscope";
  doc["tool_version"] = kHloscopeVersion;
  doc["command"] = Str(command);
  return doc;
}

Json ModuleHeaderJson(const HloModule& module) {
  Json j;
  j["name"] = Str(module.name());
  j["entry"] = Str(module.entry_computation()->name());
  j["path"] = NullIfEmpty(module.path());
  return j;
}

std::string JsonText(const Json& doc) {
  // Invalid UTF-8 in a string is replaced (U+FFFD), never an abort. JSON
  // escapes C0 controls itself; DEL and the C1 range it leaves raw, so
  // they are written as \u escapes here (they only occur inside strings).
  std::string text = doc.dump(2, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 1);
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0x7f) {
      out += "\\u007f";
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
    } else {
      out += text[i];
    }
  }
  return out + "\n";
}

Json SourceJson(const std::optional<SourceLocation>& s) {
  if (!s) return nullptr;
  Json j;
  j["file"] = NullIfEmpty(s->file);
  j["line"] = s->line ? Json(s->line) : Json(nullptr);
  j["column"] = s->column ? Json(s->column) : Json(nullptr);
  j["function"] = NullIfEmpty(s->function);
  j["op_name"] = NullIfEmpty(s->op_name);
  j["via"] = Str(SourceViaName(s->via));
  j["text"] = NullIfEmpty(SourceText(s));
  return j;
}

Json RefJson(const HloInstruction* instr) {
  if (!instr) return nullptr;
  Json j;
  j["instruction"] = Str(instr->name());
  j["computation"] = Str(instr->parent()->name());
  return j;
}

Json PositionJson(const HloPosition& pos) {
  if (!pos.instruction) return nullptr;
  Json j = RefJson(pos.instruction);
  j["index"] = IndexJson(pos.index);
  return j;
}

Json UpdateRefJson(const UpdateSite& site) {
  Json j = RefJson(site.instruction);
  j["fusion"] = site.fusion ? Str(site.fusion->name()) : Json(nullptr);
  return j;
}

namespace {

// The family's typed facts, structurally (`cause_facts`): what the rule
// matched on, for consumers that must not parse `cause_detail`. One field
// set per family (docs/json-format.md); std::visit makes a family without
// one fail to compile.
struct CauseFactsJson {
  const CopyFinding& c;
  Json operator()(const std::monostate&) const { return Json(nullptr); }
  Json operator()(const BranchFacts& f) const {
    return {{"branch", f.branch ? Json(std::string(f.branch->name())) : Json(nullptr)},
            {"conditional", RefJson(f.conditional)}};
  }
  Json operator()(const ConstantFacts& f) const { return {{"constant", RefJson(f.constant)}}; }
  Json operator()(const ParameterFacts& f) const {
    Json unordered = Json::array();
    for (const HloInstruction* r : f.unordered_readers) unordered.push_back(RefJson(r));
    return {{"parameter", f.parameter_number},
            {"parameter_index", IndexJson(f.parameter_index)},
            {"donation", DonationName(f.donation).empty() ? Json(nullptr) : Str(DonationName(f.donation))},
            {"new_value", PositionJson(f.new_value)},
            {"writer", RefJson(f.writer.instruction)},
            {"output", f.output ? IndexJson(*f.output) : Json(nullptr)},
            {"unordered_readers", std::move(unordered)}};
  }
  Json operator()(const SharedValueFacts& f) const {
    Json starts = Json::array();
    for (const CarryStart& s : f.starts) {
      Json js = RefJson(s.loop);
      js["carry"] = s.carry;
      starts.push_back(std::move(js));
    }
    Json updates = Json::array();
    for (const UpdateSite& u : f.updates) updates.push_back(RefJson(u.owner()));
    return {{"loop", RefJson(f.loop)},
            {"carry", f.carry},
            {"starts", std::move(starts)},
            {"updates", std::move(updates)},
            {"merged_initial_value", f.merged_initial_value}};
  }
  Json operator()(const StagedCarryFacts& f) const {
    return {{"loop", RefJson(f.loop)},
            {"carry", f.carry},
            {"home_memory_space", f.home},
            {"stage_memory_space", f.stage},
            {"other", PositionJson(f.other)}};
  }
  Json operator()(const ReadFacts& f) const {
    return {{"loop", RefJson(f.loop)}, {"passed_on_by_enclosing_loop", f.passed_on_by_enclosing_loop}};
  }
  Json operator()(const CarryFacts& f) const {
    Json readers = Json::array();
    for (const HloInstruction* r : f.old_value_readers) readers.push_back(RefJson(r));
    return {{"carry", f.carry},
            {"other_carry", Opt(f.other_carry)},
            {"new_value", PositionJson(f.new_value)},
            {"old_value_readers", std::move(readers)},
            {"permute", RefJson(f.permute)},
            {"scan", RefJson(f.scan)}};
  }
  Json operator()(const OutputFacts& f) const {
    Json outputs = Json::array();
    for (const ShapeIndex& o : f.outputs) outputs.push_back(IndexJson(o));
    return {{"outputs", std::move(outputs)},
            {"other_output", f.other_output ? IndexJson(*f.other_output) : Json(nullptr)},
            {"aliased_parameter", Opt(f.aliased_parameter)}};
  }
  Json operator()(const LayoutFacts& f) const {
    auto layout = [](const Shape* s) { return s && s->layout ? Json(s->layout->raw) : Json(nullptr); };
    return {{"from_layout", layout(c.source_shape)},
            {"to_layout", layout(c.shape)},
            {"collective", RefJson(f.collective)}};
  }
  Json operator()(const MemorySpaceFacts& f) const { return {{"from", f.from}, {"to", f.to}}; }
  Json operator()(const ReshapedUpdateFacts& f) const {
    return {{"operand_shape", f.operand ? f.operand->ToString() : ""},
            {"result_shape", f.result ? f.result->ToString() : ""},
            {"sliced_from", PositionJson(f.sliced_from)}};
  }
};

}  // namespace

Json CauseFactsToJson(const CopyFinding& c) {
  Json facts = std::visit(CauseFactsJson{c}, c.cause.payload);
  if (facts.is_null()) return facts;
  const RuleEntry* row = EntryOf(c.cause.rule);
  Json j;
  j["family"] = Str(row ? CauseFamilyName(row->family) : "none");
  for (auto& [k, v] : facts.items()) j[k] = v;
  return j;
}

Json CopyJson(const CopyFinding& c) {
  Json j = RefJson(c.instruction());
  j["output_index"] = IndexJson(c.copy.index);
  j["kind"] = Str(CopyKindName(c.kind));
  j["class"] = Str(CopyClassName(c.copy_class));
  j["shape"] = c.shape->ToString();
  j["scalar"] = c.scalar;
  j["minor"] = c.minor;
  j["bytes"] = Opt(c.bytes);
  j["executions"] = Opt(c.executions);
  j["executions_upper_bound"] = c.executions_upper_bound;
  j["total_bytes"] = Opt(c.total_bytes);
  j["enclosing_loops"] = Refs(c.enclosing_loops);
  j["unknown_trip_loop"] = RefJson(c.unknown_trip_loop);
  j["bytes_per_unknown_trip_iteration"] = Opt(c.bytes_per_unknown_trip_iteration);
  j["grows_with_buffer"] = c.grows_with_buffer;
  j["cause"] = Str(CopyCauseName(c.cause.cause));
  j["cause_rule"] = Str(CauseRuleName(c.cause.rule));
  j["cause_facts"] = CauseFactsToJson(c);
  j["cause_detail"] = CauseDetail(c);
  j["hint"] = NullIfEmpty(CauseHint(c));
  j["copied_from"] = PositionJson(c.copied_from);
  Json readers = Json::array();
  for (const InstructionAt& r : c.cause.readers) {
    Json jr = RefJson(r.instruction);
    jr["source"] = SourceJson(r.source);
    readers.push_back(std::move(jr));
  }
  j["readers"] = std::move(readers);
  Json feeds = Json::array();
  for (const CopyFeed& f : c.feeds) {
    Json jf;
    jf["kind"] = Str(FeedKindName(f.kind));
    if (f.kind == CopyFeed::Kind::kUpdate) {
      jf["update"] = UpdateRefJson(f.update);
    } else {
      jf["loop"] = RefJson(f.loop);
      jf["carry"] = IndexJson(f.carry);
    }
    feeds.push_back(std::move(jf));
  }
  j["feeds"] = std::move(feeds);
  j["source"] = SourceJson(c.source);
  // With a GPU thunk dump: the thunk that runs the copy.
  j["thunk"] = c.thunk ? Json{{"id", c.thunk->id}, {"kind", c.thunk->kind}} : Json(nullptr);
  return j;
}

Json UpdateJson(const UpdateFinding& u) {
  Json j = RefJson(u.site.instruction);
  j["opcode"] = Str(u.site.instruction->opcode_text());
  j["fusion"] = u.site.fusion ? Str(u.site.fusion->name()) : Json(nullptr);
  j["output_index"] = IndexJson(u.site.output_index);
  j["verdict"] = Str(UpdateVerdictName(u.verdict));
  j["in_place"] = IsInPlace(u);
  j["full_rewrite"] = u.full_rewrite;
  j["runs_on"] = u.runs_on ? PositionJson(*u.runs_on) : Json(nullptr);
  j["shares_copy"] = u.shares_copy ? PositionJson(*u.shares_copy) : Json(nullptr);
  j["gathered_by"] = RefJson(u.gathered_by);
  j["operand"] = PositionJson(u.operand);
  j["reason"] = UpdateReason(u);
  j["buffer_bytes"] = Opt(u.buffer_bytes);
  j["bytes_written"] = Opt(u.bytes_written);
  j["executions"] = Opt(u.executions);
  j["executions_upper_bound"] = u.executions_upper_bound;
  j["enclosing_loops"] = Refs(u.enclosing_loops);
  j["confirmed"] = Opt(u.confirmation.confirmed);
  j["confirmation"] = NullIfEmpty(ConfirmationText(u));
  j["confirmation_basis"] = Str(ConfirmationBasisName(u.confirmation.basis));
  j["source"] = SourceJson(u.source);
  return j;
}

Json LoopJson(const LoopFinding& l) {
  Json j = RefJson(l.loop);
  j["trip_count"] = Opt(l.trip_count);
  j["trip_count_source"] = Str(TripCountSourceName(l.trip_count_source));
  j["executions"] = Opt(l.executions);
  j["copy_bytes_per_iteration"] = Opt(l.copy_bytes_per_iteration);
  j["rewrite_bytes_per_iteration"] = Opt(l.rewrite_bytes_per_iteration);
  j["collective_bytes_per_iteration"] = Opt(l.collective_bytes_per_iteration);
  j["scales_with_buffer"] = l.scales_with_buffer;
  Json scaling = Json::array();
  for (const LoopScaling& s : l.scaling) {
    Json js;
    js["kind"] = Str(ScalingKindName(s.kind));
    bool copy = s.kind == LoopScaling::Kind::kCopy;
    bool rewrite = s.kind == LoopScaling::Kind::kCarryRewritten;
    js["copy"] = copy ? PositionJson(s.copy) : Json(nullptr);
    js["carry"] = rewrite ? Json(s.carry) : Json(nullptr);
    js["rewritten_by"] = rewrite ? PositionJson(s.rewritten_by) : Json(nullptr);
    js["collective"] = RefJson(s.collective);
    if (s.kind == LoopScaling::Kind::kWholeRead) {
      js["carry"] = s.carry;
      js["kernel"] = RefJson(s.kernel);
      js["source"] = SourceJson(s.source);
      js["slice"] = s.slice;
      js["for_op"] = RefJson(s.for_op);
    }
    js["shape"] = s.shape->ToString();
    js["bytes"] = Opt(s.bytes);
    js["grows_with_buffer"] = s.grows_with_buffer;
    js["confirmed"] = s.confirmation.confirmed ? Json(*s.confirmation.confirmed) : Json(nullptr);
    js["text"] = ScalingText(s, l);
    scaling.push_back(std::move(js));
  }
  j["scaling"] = std::move(scaling);
  Json carries = Json::array();
  for (const LoopCarry& c : l.carries) {
    Json jc;
    jc["index"] = c.index;
    jc["shape"] = c.shape->ToString();
    jc["bytes"] = Opt(c.bytes);
    jc["name"] = NullIfEmpty(CarryName(c));
    jc["parameter"] = c.parameter ? Json(c.parameter->parameter_number()) : Json(nullptr);
    jc["init"] = c.init.instruction ? RefJson(c.init.instruction) : Json(nullptr);
    jc["init_source"] = SourceJson(c.init.source);
    jc["update"] = c.update.instruction ? RefJson(c.update.instruction) : Json(nullptr);
    jc["update_source"] = SourceJson(c.update.source);
    jc["text"] = CarryOriginText(c);
    carries.push_back(std::move(jc));
  }
  j["carries"] = std::move(carries);
  j["enclosing_loops"] = Refs(l.enclosing_loops);
  j["source"] = SourceJson(l.source);
  return j;
}

Json CollectiveJson(const CollectiveFinding& c) {
  Json j = RefJson(c.instruction);
  j["collective"] = c.collective && c.collective != c.instruction ? RefJson(c.collective) : Json(nullptr);
  j["family"] = Str(CollectiveFamilyName(c.family));
  j["shape"] = c.shape ? Json(c.shape->ToString()) : Json(nullptr);
  j["operand_shape"] = c.operand_shape ? Json(c.operand_shape->ToString()) : Json(nullptr);
  j["group_size"] = c.group_size;
  j["num_groups"] = c.num_groups;
  j["spans_all_devices"] = c.spans_all_devices;
  Json axes = Json::array();
  for (const std::string& a : c.mesh_axes) axes.push_back(a);
  j["mesh_axes"] = std::move(axes);
  j["bytes_sent"] = Opt(c.bytes_sent);
  j["bytes_received"] = Opt(c.bytes_received);
  j["bytes"] = Opt(c.bytes);
  j["exact"] = c.exact;
  j["executions"] = Opt(c.executions);
  j["executions_upper_bound"] = c.executions_upper_bound;
  j["total_bytes"] = Opt(c.total_bytes);
  j["enclosing_loops"] = Refs(c.enclosing_loops);
  j["grows_with_buffer"] = c.grows_with_buffer;
  j["cause"] = Str(CollectiveCauseName(c.cause.cause));
  j["cause_rule"] = Str(CollectiveRuleName(c.cause.rule));
  const CollectiveCauseFacts& f = c.cause;
  Json facts;
  facts["primitive"] = NullIfEmpty(f.primitive);
  facts["consumer"] = RefJson(f.consumer.instruction);
  facts["consumer_fusion"] = RefJson(f.consumer_fusion);
  facts["producer"] = RefJson(f.producer.instruction);
  facts["value"] = PositionJson(f.value);
  facts["from_scatter"] = f.from_scatter;
  if (const auto& o = f.before_partitioning) {
    // Instructions of the module before partitioning (module.pre_partition_path).
    Json b;
    b["consumer"] = RefJson(o->consumer.instruction);
    b["consumer_source"] = SourceJson(o->consumer.source);
    b["consumer_sharding"] = Str(o->consumer_sharding);
    b["consumer_shards"] = o->consumer_shards;
    b["operand"] = RefJson(o->operand.instruction);
    b["operand_number"] = o->operand_number;
    b["operand_source"] = SourceJson(o->operand.source);
    b["operand_sharding"] = Str(o->operand_sharding);
    b["operand_shards"] = o->operand_shards;
    b["operand_parameter"] = Opt(o->operand_parameter);
    b["consumer_is_constraint"] = o->consumer_is_constraint;
    b["consumer_is_output"] = o->consumer_is_output;
    b["propagated_to"] = RefJson(o->propagated_to.instruction);
    b["propagated_to_source"] = SourceJson(o->propagated_to.source);
    b["output_sharding_given"] = Opt(o->output_sharding_given);
    b["parameter_sharding_given"] = Opt(o->parameter_sharding_given);
    facts["before_partitioning"] = std::move(b);
  } else {
    facts["before_partitioning"] = nullptr;
  }
  j["cause_facts"] = std::move(facts);
  j["cause_detail"] = CollectiveCauseDetail(c);
  j["hint"] = NullIfEmpty(CollectiveCauseHint(c));
  j["source"] = SourceJson(c.source);
  return j;
}

Json SpmdJson(const SpmdFacts& s) {
  Json j;
  j["replica_count"] = s.replica_count;
  j["num_partitions"] = s.num_partitions;
  j["devices"] = s.devices();
  Json mesh = Json::array();
  for (const auto& [name, size] : s.mesh_axes) mesh.push_back({{"name", name}, {"size", size}});
  j["mesh"] = std::move(mesh);
  j["mesh_names_from"] = NullIfEmpty(s.mesh_names_from);
  j["text"] = NullIfEmpty(SpmdText(s));
  return j;
}

Json ParameterJson(const ModuleCheck& m, const ParameterFinding& p) {
  Json j;
  j["number"] = p.number;
  j["name"] = Str(p.parameter->name());
  // JAX's path of the argument ("state['buf']"), from its op_name.
  const OpMetadata* md = p.parameter->metadata();
  j["argument"] = md && !md->op_name.empty() ? Json(ArgumentName(p.parameter)) : Json(nullptr);
  j["shape"] = p.parameter->shape().ToString();
  j["bytes"] = Opt(p.bytes);
  j["donated"] = p.donated();
  j["donation"] = p.donated() ? Str(DonationName(p.donation)) : Json(nullptr);
  j["copied"] = p.copied();
  Json copies = Json::array();
  for (const HloPosition& c : p.copies) copies.push_back(PositionJson(c));
  j["copies"] = std::move(copies);
  Json aliased = Json::array();
  for (const ShapeIndex& o : p.aliased_outputs) aliased.push_back(IndexJson(o));
  j["aliased_outputs"] = std::move(aliased);
  j["donation_saves"] = Opt(p.donation_saves);
  if (p.sharding) {
    j["sharding"] = {{"text", p.sharding->text},
                     {"shards_per_dim", p.sharding->shards_per_dim},
                     {"global_dims", p.sharding->global_dims},
                     {"replicated", p.sharding->replicated}};
  } else {
    j["sharding"] = nullptr;
  }
  j["global_bytes"] = Opt(p.global_bytes);
  // Donation as asked for against what XLA kept: null when the request is unknown.
  j["donation_requested"] = p.request ? Json(p.request->requested) : Json(nullptr);
  if (p.request && p.request->dropped)
    j["donation_dropped"] = {{"reason", Str(DroppedDonationName(*p.request->dropped))},
                             {"text", DroppedDonationReason(m, p)},
                             {"fix", DroppedDonationFix(p)}};
  else
    j["donation_dropped"] = nullptr;
  return j;
}

Json KernelJson(const FusionSummary& f) {
  const HloInstruction* fusion = f.fusion;
  Json j = RefJson(fusion);
  const HloComputation* fused = fusion->fused_computation();
  j["fused_computation"] = fused ? Str(fused->name()) : Json(nullptr);
  j["kind"] = Str(FusionKindText(*fusion));
  j["backend_kind"] = NullIfEmpty(f.backend_kind);
  j["shape"] = fusion->shape().ToString();
  j["instruction_count"] = f.instruction_count;
  Json ops = Json::object();
  for (auto& [op, n] : f.opcode_counts) ops[std::string(op)] = n;
  j["opcode_counts"] = std::move(ops);
  Json notable = Json::array();
  for (const FusedOp& op : f.interesting) {
    Json o = RefJson(op.instruction);
    o["opcode"] = Str(op.instruction->opcode_text());
    o["shape"] = op.instruction->shape().ToString();
    o["source"] = op.source ? SourceJson(LocationOf(*op.source, *op.instruction)) : Json(nullptr);
    notable.push_back(std::move(o));
  }
  j["notable"] = std::move(notable);
  Json lines = Json::array();
  for (const FileLines& fl : f.lines) {
    Json l;
    l["file"] = fl.file;
    l["lines"] = fl.lines;
    lines.push_back(std::move(l));
  }
  j["source_lines"] = std::move(lines);
  j["lines_text"] = FileLinesText(f.lines);
  j["bytes_read"] = Opt(f.bytes_read);
  j["bytes_written"] = Opt(f.bytes_written);
  j["executions"] = Opt(f.executions);
  j["executions_upper_bound"] = f.executions_upper_bound;
  j["bytes_per_call"] = Opt(f.bytes_per_call());
  j["flops"] = Opt(f.flops);
  j["transcendentals"] = Opt(f.transcendentals);
  j["enclosing_loops"] = Refs(f.enclosing_loops);
  j["source"] = f.source ? SourceJson(LocationOf(*f.source, *f.fusion)) : Json(nullptr);
  if (f.serves) {
    Json served = RefJson(f.serves);
    served["source"] = f.serves_source ? SourceJson(LocationOf(*f.serves_source, *f.serves)) : Json(nullptr);
    j["serves"] = std::move(served);
  } else {
    j["serves"] = nullptr;
  }
  Json updates = Json::array();
  for (const UpdateFinding* u : f.updates) updates.push_back(UpdateJson(*u));
  j["updates"] = std::move(updates);
  Json copies = Json::array();
  for (const CopyFinding* c : f.copies) copies.push_back(CopyJson(*c));
  j["copies"] = std::move(copies);
  return j;
}

Json ViolationJson(const Violation& v) {
  Json j;
  j["kind"] = Str(ViolationKindName(v.kind));
  j["module"] = v.module ? Str(v.module->module->name()) : Json(nullptr);
  j["copy"] = v.copy ? PositionJson(v.copy->copy) : Json(nullptr);
  j["update"] = v.update ? UpdateRefJson(v.update->site) : Json(nullptr);
  // Added with the gate policy of schema 2.x: the gate broken, and the loop
  // of a loop's claim (full rewrite, contradicted rewrite).
  j["gate"] = v.gate ? Str(EntryOf(*v.gate).name) : Json(nullptr);
  j["loop"] = v.loop ? RefJson(v.loop->loop) : Json(nullptr);
  j["collective"] = v.collective ? RefJson(v.collective->instruction) : Json(nullptr);
  bool budget = v.kind == Violation::Kind::kCopyBytes || v.kind == Violation::Kind::kCopyCount ||
                v.kind == Violation::Kind::kCopiesInLoops || v.kind == Violation::Kind::kCopyBytesInLoops ||
                v.kind == Violation::Kind::kPeakBytes;
  j["limit"] = budget ? Json(v.limit) : Json(nullptr);
  j["amount"] = budget ? Json(v.amount) : Json(nullptr);
  j["amount_unknown"] = v.amount_unknown;
  j["text"] = ViolationText(v);
  return j;
}

Json LineReadJson(const LineRead& r, const std::optional<SourceLocation>& reader_source) {
  Json j;
  Json reader = RefJson(r.reader);
  reader["source"] = SourceJson(reader_source);
  j["reader"] = std::move(reader);
  j["value"] = PositionJson(r.copy->copied_from);
  j["forces_copy"] = PositionJson(r.copy->copy);
  return j;
}

}  // namespace hloscope
