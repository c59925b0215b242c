// Reading a typed value out of untrusted JSON without nlohmann's silent
// conversions: an integer that does not fit the target type (a port of
// 70000, a count of -1) or a value of another kind is refused.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>

namespace flowperf::core {

// The deepest nesting of objects and arrays read from a peer. Every message
// of every protocol is far shallower (flowperf's results: 6 levels); a deep
// one costs memory out of all proportion to its bytes (1 MiB of `[[[[`
// took 86 MB as a DOM), so it is refused as soon as it is seen, before
// anything is built below the limit.
inline constexpr int kMaxJsonDepth = 32;

template <typename T>
std::optional<T> checked_get(const nlohmann::json& v) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return std::nullopt;
    return v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (v.is_number_unsigned()) {
      uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) return std::nullopt;
      return static_cast<T>(u);
    }
    if (v.is_number_integer()) {
      int64_t s = v.get<int64_t>();
      if constexpr (std::is_unsigned_v<T>) {
        if (s < 0 || static_cast<uint64_t>(s) > std::numeric_limits<T>::max()) return std::nullopt;
      } else {
        if (s < std::numeric_limits<T>::min() || s > std::numeric_limits<T>::max())
          return std::nullopt;
      }
      return static_cast<T>(s);
    }
    return std::nullopt;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) return std::nullopt;
    return v.get<T>();
  } else {
    try {
      return v.get<T>();
    } catch (const nlohmann::json::exception&) {
      return std::nullopt;
    }
  }
}

}  // namespace flowperf::core
