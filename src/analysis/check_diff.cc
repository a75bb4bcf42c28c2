#include "hloscope/analysis/check_diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "diff_groups.h"
#include "hloscope/analysis/jax_op_name.h"
#include "hloscope/support/saturating.h"

namespace hloscope {

// The groups are this file's input (diff_groups.h).
using namespace diff_internal;  // NOLINT(build/namespaces)

const DocCopy* DocModule::FindCopy(const std::string& instruction) const {
  if (instruction.empty()) return nullptr;
  for (const DocCopy& c : copies)
    if (c.instruction == instruction) return &c;
  return nullptr;
}

namespace {

std::optional<double> Ratio(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  if (*a == 0 && *b == 0) return 1.0;
  if (*a <= 0 || *b <= 0) return std::nullopt;
  return static_cast<double>(*b) / static_cast<double>(*a);
}

// How a cost scales with the arguments: log(ratio) / log(size ratio);
// nullopt when either is unknown or the arguments did not change.
std::optional<double> SizeExponent(const ModuleDiff& m, std::optional<double> ratio) {
  if (!ratio || !m.size_ratio || std::abs(std::log(*m.size_ratio)) <= 1e-9) return std::nullopt;
  return std::log(*ratio) / std::log(*m.size_ratio);
}

void Compare(const ModuleDiff& m, DiffItem* item) {
  const DiffSide& a = *item->a;
  const DiffSide& b = *item->b;
  item->bytes_ratio = Ratio(a.bytes, b.bytes);
  item->per_call_ratio = Ratio(a.bytes_per_call, b.bytes_per_call);
  item->exponent = SizeExponent(m, item->bytes_ratio);
  item->flops_ratio = Ratio(a.flops, b.flops);
  item->flops_exponent = SizeExponent(m, item->flops_ratio);
  // A loop's work also grows when its kernels read a larger buffer whole
  // every iteration (nothing copied or rewritten more): `check` flags such
  // a loop as growing with the buffer, and so does the diff.
  item->whole_read_ratio = Ratio(a.whole_read_bytes, b.whole_read_bytes);
  item->whole_read_exponent = SizeExponent(m, item->whole_read_ratio);
  // One rule for every cost (bytes, a kernel's FLOPs, whole reads): it
  // grows when its per-run figure grows at least as the square root of the
  // arguments, and by more than 5 %. Arguments are what the experiment
  // changes, not findings that grow.
  auto grows_by = [](std::optional<double> exponent, std::optional<double> ratio) {
    return exponent && ratio && *exponent >= 0.5 && std::abs(std::log(*ratio)) > std::log(1.05);
  };
  item->grows =
      item->kind != DiffKind::kParameter &&
      (grows_by(item->exponent, item->bytes_ratio) || grows_by(item->flops_exponent, item->flops_ratio) ||
       grows_by(item->whole_read_exponent, item->whole_read_ratio));
  if (item->grows) {
    // The argument it tracks: the one it copies, else one that grew as much
    // as the array involved, else the one that grew the most.
    std::optional<double> array_ratio = Ratio(a.array_bytes, b.array_bytes);
    for (const SizeChange& sc : m.sizes)
      if (!b.tied_parameter.empty() && sc.name == b.tied_parameter) item->grows_with = sc.name;
    if (item->grows_with.empty() && array_ratio)
      for (const SizeChange& sc : m.sizes)
        if (std::abs(std::log(sc.ratio / *array_ratio)) < std::log(1.05)) {
          item->grows_with = sc.name;
          break;
        }
    if (item->grows_with.empty()) item->grows_with = m.size_parameter;
  }

  auto change = [&](DiffChange c) { item->changes.push_back(std::move(c)); };
  if (a.count != b.count && item->kind != DiffKind::kParameter && item->kind != DiffKind::kLoop)
    change({DiffChange::Kind::kCount, a.count, b.count, {}, {}, {}, {}});
  if (!(a.state == b.state)) change({DiffChange::Kind::kState, {}, {}, a.state, b.state, {}, {}});
  if (item->kind == DiffKind::kParameter && a.shape != b.shape)
    change({DiffChange::Kind::kShape, {}, {}, {}, {}, a.shape, b.shape});
  if (item->kind == DiffKind::kLoop && a.trip_count != b.trip_count)
    change({DiffChange::Kind::kTripCount, a.trip_count, b.trip_count, {}, {}, {}, {}});
  if (a.bytes != b.bytes && item->kind != DiffKind::kParameter)
    change({DiffChange::Kind::kBytes, a.bytes, b.bytes, {}, {}, {}, {}});
  if (a.executions != b.executions && item->kind != DiffKind::kParameter && item->kind != DiffKind::kLoop)
    change({DiffChange::Kind::kExecutions, a.executions, b.executions, {}, {}, {}, {}});
  item->status = item->changes.empty() ? DiffStatus::kUnchanged : DiffStatus::kChanged;
}

std::string SignaturePattern(const std::string& signature) { return ShapePattern(signature); }

UnpairedModule Unpaired(const DocModule& m) { return {m.name, m.entry_signature, m.path}; }

}  // namespace

std::string WithoutLayout(std::string_view shape) {
  std::string out;
  int depth = 0;
  for (char c : shape) {
    if (c == '{') ++depth;
    if (depth == 0) out.push_back(c);
    if (c == '}' && depth > 0) --depth;
  }
  return out;
}

std::string ShapePattern(std::string_view shape) {
  std::string out;
  bool in_dims = false;
  int depth = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    char c = shape[i];
    if (c == '{') ++depth;
    if (depth > 0) {
      if (c == '}') --depth;
      continue;
    }
    if (c == '[') in_dims = true;
    if (c == ']') in_dims = false;
    if (in_dims && (std::isdigit(static_cast<unsigned char>(c)) || c == '<' || c == '=' || c == '?')) {
      // One `_` per dimension: "16384" and "<=8" alike.
      if (out.empty() || out.back() != '_') out.push_back('_');
      continue;
    }
    out.push_back(c);
  }
  return out;
}

ModuleDiff DiffModules(const DocModule& a, const DocModule& b, const FindingFilter& filter) {
  ModuleDiff m;
  m.a_name = a.name;
  m.b_name = b.name;
  m.a_path = a.path;
  m.b_path = b.path;
  m.a_signature = a.entry_signature;
  m.b_signature = b.entry_signature;
  m.a_devices = a.devices;
  m.b_devices = b.devices;
  m.kernels_compared = a.has_kernels && b.has_kernels;
  m.stands_out = a.stands_out || b.stands_out;
  m.estimated_seconds = std::max(a.estimated_seconds, b.estimated_seconds);

  // Argument sizes: the experiment's independent variable.
  std::map<int64_t, const DocParameter*> b_params;
  for (const DocParameter& p : b.parameters)
    if (p.number) b_params[*p.number] = &p;
  double best = 0;
  for (const DocParameter& p : a.parameters) {
    if (!p.number || !b_params.count(*p.number)) continue;
    const DocParameter& q = *b_params[*p.number];
    std::optional<double> r = Ratio(p.bytes, q.bytes);
    if (!r || std::abs(std::log(*r)) < 1e-9) continue;
    m.sizes.push_back(
        {*p.number, q.name, WithoutLayout(p.shape), WithoutLayout(q.shape), p.bytes, q.bytes, *r});
    if (std::abs(std::log(*r)) > best) {
      best = std::abs(std::log(*r));
      m.size_ratio = *r;
      m.size_parameter = q.name;
    }
  }

  m.memory = DiffMemory(a.memory, b.memory, m.size_ratio);

  std::vector<Group> ga = GroupFindings(a, filter);
  std::vector<Group> gb = GroupFindings(b, filter);
  std::map<GroupKey, size_t> b_exact;
  for (size_t i = 0; i < gb.size(); ++i) b_exact[gb[i].exact] = i;

  auto item_of = [](const Group& g) {
    DiffItem item;
    item.kind = g.what.kind;
    item.what = g.what;
    item.source = g.source.text;
    item.op_name = g.source.op_name;
    return item;
  };
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = 0; i < ga.size(); ++i) {
    auto it = b_exact.find(ga[i].exact);
    if (it == b_exact.end() || gb[it->second].matched) continue;
    ga[i].matched = gb[it->second].matched = true;
    pairs.push_back({i, it->second});
  }
  // Moved lines: the rest by identity without the line (same function),
  // then by scope path (a renamed function, another JAX), then by what it
  // is and where it runs, each in order.
  for (GroupKey Group::*key : {&Group::loose, &Group::scope, &Group::fallback}) {
    std::map<GroupKey, std::vector<size_t>> b_key;
    for (size_t i = 0; i < gb.size(); ++i)
      if (!gb[i].matched) b_key[gb[i].*key].push_back(i);
    for (size_t i = 0; i < ga.size(); ++i) {
      if (ga[i].matched) continue;
      auto it = b_key.find(ga[i].*key);
      if (it == b_key.end() || it->second.empty()) continue;
      size_t j = it->second.front();
      it->second.erase(it->second.begin());
      ga[i].matched = gb[j].matched = true;
      pairs.push_back({i, j});
    }
  }
  // Attribution that split or merged: another JAX attributes one of two
  // copies to the next line, so A has groups of 1 + 1 and B one group of 2.
  // An unmatched group folds into a pair of the same kind of finding whose
  // other side has more members, as long as the counts then agree.
  auto fold = [&](std::vector<Group>& side, bool side_is_a) {
    for (size_t i = 0; i < side.size(); ++i) {
      if (side[i].matched) continue;
      for (auto& [ia, ib] : pairs) {
        Group& mine = side_is_a ? ga[ia] : gb[ib];
        const Group& other = side_is_a ? gb[ib] : ga[ia];
        if (&mine == &side[i] || !(mine.fallback == side[i].fallback)) continue;
        if (mine.side.count + side[i].side.count > other.side.count) continue;
        DiffSide& to = mine.side;
        const DiffSide& from = side[i].side;
        to.count += from.count;
        to.instructions.insert(to.instructions.end(), from.instructions.begin(), from.instructions.end());
        to.bytes = SatAdd(to.bytes, from.bytes);
        to.bytes_per_call = SatAdd(to.bytes_per_call, from.bytes_per_call);
        side[i].matched = true;
        break;
      }
    }
  };
  fold(ga, true);
  fold(gb, false);
  std::sort(pairs.begin(), pairs.end());

  size_t next_pair = 0;
  for (size_t i = 0; i < ga.size(); ++i) {
    bool paired = next_pair < pairs.size() && pairs[next_pair].first == i;
    if (ga[i].matched && !paired) continue;  // folded into another group
    DiffItem item = item_of(ga[i]);
    item.a = ga[i].side;
    if (paired) {
      const Group& g = gb[pairs[next_pair].second];
      item.b = g.side;
      if (item.source != g.source.text) {
        item.moved_from = item.source;
        item.source = g.source.text.empty() ? item.source : g.source.text;
      }
      Compare(m, &item);
      ++next_pair;
    } else {
      item.status = DiffStatus::kOnlyInA;
    }
    m.items.push_back(std::move(item));
  }
  for (const Group& g : gb) {
    if (g.matched) continue;
    DiffItem item = item_of(g);
    item.b = g.side;
    item.status = DiffStatus::kOnlyInB;
    m.items.push_back(std::move(item));
  }
  // Kinds in report order (parameters, copies, updates, loops, kernels),
  // each by how much it moves per call in B (else A), most first.
  auto weight = [](const DiffItem& it) {
    const std::optional<DiffSide>& s = it.b ? it.b : it.a;
    return s->bytes_per_call.value_or(s->bytes.value_or(0));
  };
  std::stable_sort(m.items.begin(), m.items.end(), [&](const DiffItem& x, const DiffItem& y) {
    if (x.kind != y.kind) return x.kind < y.kind;
    if (x.kind == DiffKind::kParameter) return false;
    return weight(x) > weight(y);
  });
  return m;
}

bool ModuleDiff::Quiet() const {
  for (const DiffItem& it : items)
    if (it.grows || it.status != DiffStatus::kUnchanged) return false;
  return !memory || memory->a_peak == memory->b_peak;
}

DiffResult DiffDocuments(const CheckDocument& a, const CheckDocument& b, const FindingFilter& filter) {
  DiffResult r;
  const std::vector<DocModule>& ma = a.modules;
  const std::vector<DocModule>& mb = b.modules;
  std::vector<bool> used_b(mb.size(), false);
  std::vector<int64_t> pair_of(ma.size(), -1);
  // By name and exact signature, then by name and signature pattern (the
  // same program at another size), then by name alone, each in order.
  auto pass = [&](auto&& same) {
    for (size_t i = 0; i < ma.size(); ++i) {
      if (pair_of[i] >= 0) continue;
      for (size_t j = 0; j < mb.size(); ++j)
        if (!used_b[j] && same(ma[i], mb[j])) {
          pair_of[i] = static_cast<int64_t>(j);
          used_b[j] = true;
          break;
        }
    }
  };
  pass([](const DocModule& x, const DocModule& y) {
    return x.name == y.name && x.entry_signature == y.entry_signature;
  });
  pass([](const DocModule& x, const DocModule& y) {
    return x.name == y.name && SignaturePattern(x.entry_signature) == SignaturePattern(y.entry_signature);
  });
  pass([](const DocModule& x, const DocModule& y) { return x.name == y.name; });
  // One module on each side: they are the two compilations to compare,
  // whatever their names (a function renamed by the fix).
  if (ma.size() == 1 && mb.size() == 1 && pair_of[0] < 0) {
    pair_of[0] = 0;
    used_b[0] = true;
  }
  for (size_t i = 0; i < ma.size(); ++i) {
    if (pair_of[i] < 0)
      r.only_in_a.push_back(Unpaired(ma[i]));
    else
      r.modules.push_back(DiffModules(ma[i], mb[pair_of[i]], filter));
  }
  // The user's modules first — not JAX's own helpers called outside jit
  // (jit__normal), then those whose answer stands out, then by estimated
  // time; dump order among equals.
  std::stable_sort(r.modules.begin(), r.modules.end(), [](const ModuleDiff& x, const ModuleDiff& y) {
    bool x_helper = IsPrivateJitModule(x.b_name), y_helper = IsPrivateJitModule(y.b_name);
    if (x_helper != y_helper) return y_helper;
    if (x.stands_out != y.stands_out) return x.stands_out;
    return x.estimated_seconds > y.estimated_seconds;
  });
  for (size_t j = 0; j < mb.size(); ++j)
    if (!used_b[j]) {
      r.only_in_b.push_back(Unpaired(mb[j]));
      DocModule nothing;
      nothing.name = mb[j].name;
      nothing.entry_signature = mb[j].entry_signature;
      r.new_modules.push_back(DiffModules(nothing, mb[j], filter));
    }
  return r;
}

}  // namespace hloscope
