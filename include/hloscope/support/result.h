// Result<T>: a value or the Diagnostic that explains why there is none.
// The one error type at hloscope's API (no exceptions cross public headers).
#ifndef HLOSCOPE_SUPPORT_RESULT_H_
#define HLOSCOPE_SUPPORT_RESULT_H_

#include <cassert>
#include <utility>
#include <variant>

#include "hloscope/support/diagnostic.h"

namespace hloscope {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}           // NOLINT: implicit
  Result(Diagnostic error) : v_(std::move(error)) {}  // NOLINT: implicit

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  T& value() & {
    assert(ok());
    return std::get<T>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(v_));
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(v_);
  }
  T* operator->() { return &value(); }
  T& operator*() & { return value(); }
  const Diagnostic& error() const {
    assert(!ok());
    return std::get<Diagnostic>(v_);
  }

 private:
  std::variant<T, Diagnostic> v_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_RESULT_H_
