// grain::Error: the one exception type of the library. Messages name what was wrong and where.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace grain {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

namespace impl {

// Builds a message from streamable parts: throw_error("deep_copy: extents ", a, " vs ", b).
template <class... Parts>
[[noreturn]] void throw_error(Parts&&... parts) {
  std::ostringstream os;
  (os << ... << std::forward<Parts>(parts));
  throw Error(os.str());
}

}  // namespace impl
}  // namespace grain
