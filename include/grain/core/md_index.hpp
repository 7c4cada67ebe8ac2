// Index arithmetic shared by the MDRangePolicy implementations of every back end.
#pragma once

#include <utility>

#include "grain/core/config.hpp"
#include "grain/core/policy.hpp"

namespace grain::impl {

// A device-copyable summary of an MDRangePolicy: tiles, and the order in which they and the
// points inside them are enumerated (Left: dimension 0 fastest).
template <int R>
struct MDIndexer {
  index_type lower[R], upper[R], tile[R], ntiles[R];
  index_type num_tiles, tile_volume;
  bool left;

  template <class Policy>
  explicit MDIndexer(const Policy& p) {
    num_tiles = 1;
    tile_volume = 1;
    for (int r = 0; r < R; ++r) {
      lower[r] = p.lower(r);
      upper[r] = p.upper(r);
      tile[r] = p.tile(r);
      ntiles[r] = p.tiles(r);
      num_tiles *= ntiles[r];
      tile_volume *= tile[r];
    }
    left = Policy::iterate == Iterate::Left;
  }

  // Splits a linear number into coordinates over `dims`, fastest dimension per the order.
  GRAIN_FORCEINLINE_FUNCTION void split(index_type lin, const index_type* dims,
                                        index_type* out) const {
    if (left) {
      for (int r = 0; r < R; ++r) {
        out[r] = lin % dims[r];
        lin /= dims[r];
      }
    } else {
      for (int r = R - 1; r >= 0; --r) {
        out[r] = lin % dims[r];
        lin /= dims[r];
      }
    }
  }
  // The first point of tile number t.
  GRAIN_FORCEINLINE_FUNCTION void tile_origin(index_type t, index_type* origin) const {
    split(t, ntiles, origin);
    for (int r = 0; r < R; ++r) origin[r] = lower[r] + origin[r] * tile[r];
  }
  // The point at local number `local` inside the tile starting at origin; false past the bounds.
  GRAIN_FORCEINLINE_FUNCTION bool point(const index_type* origin, index_type local,
                                        index_type* idx) const {
    split(local, tile, idx);
    bool inside = true;
    for (int r = 0; r < R; ++r) {
      idx[r] += origin[r];
      inside = inside && idx[r] < upper[r];
    }
    return inside;
  }
};

template <class F, std::size_t... I, class... Extra>
GRAIN_FORCEINLINE_FUNCTION void md_call(const F& f, const index_type* idx,
                                        std::index_sequence<I...>, Extra&&... extra) {
  f(idx[I]..., std::forward<Extra>(extra)...);
}

}  // namespace grain::impl
