#include "hloscope/analysis/memory_diff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <tuple>

#include "hloscope/analysis/check_diff.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

struct Entry {
  MemoryBufferChange::Where where;
  const DocMemoryBuffer* buffer;
  std::string pattern;
  bool matched = false;
};

// The temporaries' heap is one allocation whose growth is the live
// values'; an allocation without a role counts in no part of the peak.
bool Counted(const DocMemoryBuffer& b) {
  return b.role == "argument" || b.role == "donated-argument" || b.role == "output";
}

std::vector<Entry> EntriesOf(const DocMemory& m) {
  std::vector<Entry> out;
  for (const DocMemoryBuffer& b : m.allocations)
    if (Counted(b)) out.push_back({MemoryBufferChange::Where::kAllocation, &b, ShapePattern(b.shape)});
  for (const DocMemoryBuffer& b : m.live)
    out.push_back({MemoryBufferChange::Where::kLive, &b, ShapePattern(b.shape)});
  return out;
}

std::string SourceText(const DocMemoryBuffer& b) { return b.source ? b.source->text : ""; }
std::string OpName(const DocMemoryBuffer& b) { return b.source ? b.source->op_name : ""; }
std::string Function(const DocMemoryBuffer& b) { return b.source ? b.source->function : ""; }

// The matching passes, strictest first: what it is and where it comes
// from; without the line (the code moved); by function; by what it is
// alone, in order of size. Arguments match by their number.
using Key = std::tuple<int, std::string, std::string, std::string, int64_t>;
const std::function<Key(const Entry&)> kPasses[] = {
    [](const Entry& e) {
      return Key{static_cast<int>(e.where), e.buffer->role, e.pattern,
                 SourceText(*e.buffer) + "|" + OpName(*e.buffer), -1};
    },
    [](const Entry& e) {
      return Key{static_cast<int>(e.where), e.buffer->role, e.pattern, OpName(*e.buffer), -1};
    },
    [](const Entry& e) {
      return Key{static_cast<int>(e.where), e.buffer->role, e.pattern, Function(*e.buffer), -1};
    },
    [](const Entry& e) {
      return Key{static_cast<int>(e.where), e.buffer->role, e.pattern, "", -1};
    },
};

bool IsArgument(const Entry& e) {
  return e.where == MemoryBufferChange::Where::kAllocation && e.buffer->parameter_number.has_value();
}

std::optional<double> Exponent(std::optional<int64_t> a, std::optional<int64_t> b,
                               std::optional<double> size) {
  if (!a || !b || *a <= 0 || *b <= 0 || !size || std::abs(std::log(*size)) < 1e-9) return std::nullopt;
  return std::log(static_cast<double>(*b) / static_cast<double>(*a)) / std::log(*size);
}

MemoryBufferChange ChangeOf(const Entry* a, const Entry* b, std::optional<double> size_ratio) {
  MemoryBufferChange c;
  const Entry& any = b ? *b : *a;
  c.where = any.where;
  c.role = any.buffer->role;
  c.value_kind = any.buffer->value_kind;
  c.pattern = any.pattern;
  c.parameter_number = any.buffer->parameter_number;
  c.instruction = any.buffer->instruction;
  c.source = b && b->buffer->source ? b->buffer->source : a ? a->buffer->source : std::nullopt;
  if (a) {
    c.a_shape = WithoutLayout(a->buffer->shape);
    c.a_bytes = a->buffer->bytes;
  }
  if (b) {
    c.b_shape = WithoutLayout(b->buffer->shape);
    c.b_bytes = b->buffer->bytes;
  }
  c.exponent = Exponent(c.a_bytes, c.b_bytes, size_ratio);
  c.grows = c.exponent && *c.exponent >= 0.5 &&
            static_cast<double>(*c.b_bytes) > static_cast<double>(*c.a_bytes) * 1.05;
  return c;
}

}  // namespace

std::optional<MemoryDiff> DiffMemory(const std::optional<DocMemory>& a, const std::optional<DocMemory>& b,
                                     std::optional<double> size_ratio) {
  if (!a && !b) return std::nullopt;
  MemoryDiff d;
  // Each side's parts (all unknown for a side without memory).
  for (auto [m, parts] :
       {std::pair{&a, std::array{&d.a_peak, &d.a_argument, &d.a_output, &d.a_alias, &d.a_temp}},
        std::pair{&b, std::array{&d.b_peak, &d.b_argument, &d.b_output, &d.b_alias, &d.b_temp}}}) {
    if (!*m) continue;
    const DocMemory& mem = **m;
    const std::optional<int64_t>* values[] = {&mem.peak_bytes, &mem.argument_bytes, &mem.output_bytes,
                                              &mem.alias_bytes, &mem.temp_bytes};
    for (size_t i = 0; i < parts.size(); ++i) *parts[i] = *values[i];
  }
  if (d.a_peak && d.b_peak && *d.a_peak > 0)
    d.ratio = static_cast<double>(*d.b_peak) / static_cast<double>(*d.a_peak);
  d.exponent = Exponent(d.a_peak, d.b_peak, size_ratio);

  std::vector<Entry> as = a ? EntriesOf(*a) : std::vector<Entry>{};
  std::vector<Entry> bs = b ? EntriesOf(*b) : std::vector<Entry>{};
  std::vector<std::pair<Entry*, Entry*>> pairs;
  for (Entry& e : bs) {
    if (!IsArgument(e)) continue;
    for (Entry& x : as)
      if (!x.matched && IsArgument(x) && x.buffer->parameter_number == e.buffer->parameter_number) {
        x.matched = e.matched = true;
        pairs.emplace_back(&x, &e);
        break;
      }
  }
  for (const auto& key : kPasses)
    for (Entry& e : bs) {
      if (e.matched || IsArgument(e)) continue;
      Key k = key(e);
      for (Entry& x : as)
        if (!x.matched && !IsArgument(x) && key(x) == k) {
          x.matched = e.matched = true;
          pairs.emplace_back(&x, &e);
          break;
        }
    }

  auto cut = [](const std::optional<DocMemory>& m, MemoryBufferChange::Where where) {
    if (!m) return false;
    if (where == MemoryBufferChange::Where::kAllocation)
      return m->allocation_count.value_or(0) > static_cast<int64_t>(m->allocations.size());
    return m->live_count.value_or(0) > static_cast<int64_t>(m->live.size());
  };
  for (auto [x, e] : pairs) {
    if (x->buffer->bytes == e->buffer->bytes) {
      ++d.unchanged;
      continue;
    }
    d.buffers.push_back(ChangeOf(x, e, size_ratio));
  }
  for (const Entry& e : bs)
    if (!e.matched) {
      d.buffers.push_back(ChangeOf(nullptr, &e, size_ratio));
      d.buffers.back().a_cut = cut(a, e.where);
    }
  for (const Entry& x : as)
    if (!x.matched) {
      d.buffers.push_back(ChangeOf(&x, nullptr, size_ratio));
      d.buffers.back().b_cut = cut(b, x.where);
    }
  std::stable_sort(
      d.buffers.begin(), d.buffers.end(), [](const MemoryBufferChange& x, const MemoryBufferChange& y) {
        int64_t ax = x.added() < 0 ? -x.added() : x.added(), ay = y.added() < 0 ? -y.added() : y.added();
        return ax > ay;
      });
  return d;
}

}  // namespace hloscope
