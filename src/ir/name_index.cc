#include "hloscope/ir/name_index.h"

#include <algorithm>

#include "hloscope/ir/module.h"

namespace hloscope {

HloNameIndex::HloNameIndex(const HloModule& module) {
  first_.reserve(static_cast<size_t>(module.instruction_count()));
  computations_.reserve(module.computations().size());
  for (const HloComputation* comp : module.computations()) {
    computations_[comp->name()].push_back(comp);
    for (const HloInstruction* instr : comp->instructions())
      if (!first_.emplace(instr->name(), instr).second) more_.emplace(instr->name(), instr);
  }
}

const HloComputation* HloNameIndex::FindComputation(std::string_view name) const {
  auto it = computations_.find(name);
  return it != computations_.end() && it->second.size() == 1 ? it->second.front() : nullptr;
}

std::span<const HloComputation* const> HloNameIndex::ComputationsNamed(std::string_view name) const {
  auto it = computations_.find(name);
  if (it == computations_.end()) return {};
  return it->second;
}

const HloInstruction* HloNameIndex::FindInstruction(const HloComputation& comp, std::string_view name) const {
  auto it = first_.find(name);
  if (it == first_.end()) return nullptr;
  if (it->second->parent() == &comp) return it->second;
  auto [a, b] = more_.equal_range(name);
  for (; a != b; ++a)
    if (a->second->parent() == &comp) return a->second;
  return nullptr;
}

std::vector<const HloInstruction*> HloNameIndex::InstructionsNamed(std::string_view name) const {
  std::vector<const HloInstruction*> out;
  auto it = first_.find(name);
  if (it == first_.end()) return out;
  out.push_back(it->second);
  auto [a, b] = more_.equal_range(name);
  for (; a != b; ++a) out.push_back(a->second);
  // Text order (ids are dense in text order).
  std::sort(out.begin(), out.end(), [](auto* x, auto* y) { return x->id() < y->id(); });
  return out;
}

const HloInstruction* HloNameIndex::UniqueInstructionNamed(std::string_view name) const {
  auto it = first_.find(name);
  if (it == first_.end() || (!more_.empty() && more_.count(name) > 0)) return nullptr;
  return it->second;
}

HloNameIndex::Lookup HloNameIndex::Resolve(std::string_view text) const {
  Lookup out;
  if (!text.empty() && text.front() == '%') text.remove_prefix(1);
  size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    std::string_view comp_name = text.substr(0, slash);
    if (!comp_name.empty() && comp_name.front() == '%') comp_name.remove_prefix(1);
    std::string_view name = text.substr(slash + 1);
    if (!name.empty() && name.front() == '%') name.remove_prefix(1);
    for (const HloComputation* comp : ComputationsNamed(comp_name))
      if (const HloInstruction* i = FindInstruction(*comp, name)) out.matches.push_back(i);
  } else {
    out.matches = InstructionsNamed(text);
  }
  if (out.matches.size() == 1) out.instruction = out.matches.front();
  return out;
}

}  // namespace hloscope
