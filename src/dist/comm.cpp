// grain::dist::Comm's engine-independent parts (include/grain/dist/comm.hpp).
#include "grain/dist/comm.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace grain::dist {

std::size_t data_type_size(DataType t) { return t == DataType::Float ? 4 : 8; }

void SelfComm::reduce_scatter(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) {
  if (send != recv && !counts.empty()) std::memmove(recv, send, counts[0] * data_type_size(t));
}

void Comm::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  stop_others(code);
  std::_Exit(code);  // other threads may still be inside the engine: no static destructors
}

void Comm::agree(const std::string& error) {
  const int P = size();
  if (P == 1) {
    if (!error.empty()) throw AgreedError(error);
    return;
  }
  // The lowest failing rank speaks: its message goes to every rank as 64-bit words.
  std::int64_t who = error.empty() ? P : rank();
  allreduce(&who, 1, ReduceOp::Min);
  if (who == P) return;
  std::int64_t length = who == rank() ? static_cast<std::int64_t>(error.size()) : 0;
  broadcast(&length, 1, DataType::Int64, static_cast<int>(who));
  std::vector<std::int64_t> words(static_cast<std::size_t>(length + 7) / 8, 0);
  if (who == rank()) std::memcpy(words.data(), error.data(), error.size());
  broadcast(words.data(), words.size(), DataType::Int64, static_cast<int>(who));
  const std::string message(reinterpret_cast<const char*>(words.data()), static_cast<std::size_t>(length));
  throw AgreedError("rank " + std::to_string(who) + " of " + std::to_string(P) + ": " + message);
}

}  // namespace grain::dist
