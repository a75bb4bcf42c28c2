#include "hloscope/ir/module.h"

#include <algorithm>

#include "hloscope/ir/name_index.h"

namespace hloscope {

HloModule::~HloModule() = default;

void HloModule::NamesDeleter::operator()(HloNameIndex* p) const { delete p; }

const HloNameIndex& HloModule::names() const {
  std::call_once(names_once_, [this] { names_.reset(new HloNameIndex(*this)); });
  return *names_;
}

HloComputation* HloModule::GetComputation(std::string_view name) const {
  return const_cast<HloComputation*>(names().FindComputation(name));
}

std::optional<std::string_view> HloModule::attribute(std::string_view name) const {
  for (const HloAttribute& a : attributes_)
    if (a.name == name) return a.value;
  return std::nullopt;
}

int64_t HloModule::instruction_count() const {
  int64_t n = 0;
  for (const HloComputation* c : computations_) n += c->instruction_count();
  return n;
}

int64_t HloModule::LineOf(uint64_t offset) const {
  if (line_starts_.empty()) {
    line_starts_.push_back(0);
    std::string_view s = source_text_;
    for (size_t i = s.find('\n'); i != std::string_view::npos; i = s.find('\n', i + 1))
      line_starts_.push_back(i + 1);
  }
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<int64_t>(it - line_starts_.begin());
}

size_t HloModule::MemoryUsage() const {
  size_t shapes = 0;
  for (const Shape& s : shapes_)
    shapes +=
        sizeof(Shape) + s.dimensions.capacity() * 8 + s.tuple_shapes.capacity() * 8 + s.type_name.capacity();
  return arena_.bytes_reserved() + shapes;
}

}  // namespace hloscope
