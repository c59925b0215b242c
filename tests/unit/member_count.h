// The number of members of an aggregate: the most initializers T{...}
// takes when each converts to anything (a member that is itself an
// aggregate takes one whole, so nested members are not counted). Tests
// compare it with a field list's length, so a member added to a struct and
// forgotten in its list fails them.
#pragma once

#include <cstddef>

namespace flowperf::test_support {

struct AnyMember {
  template <typename T>
  operator T() const;  // never called: only in unevaluated requires-expressions
};

template <typename T, typename... Given>
constexpr size_t member_count() {
  if constexpr (requires { T{Given{}..., AnyMember{}}; })
    return member_count<T, Given..., AnyMember>();
  else
    return sizeof...(Given);
}

}  // namespace flowperf::test_support
