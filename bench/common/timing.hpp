// Timing for benchmarks: median and minimum over repetitions after warm-up, with the back end
// fenced around each repetition (device events on the GPU, a steady clock on the host). The timer
// is the library's (grain/contract/measure.hpp), which `grain tune` measures with too, so the suites
// and the tuning file time alike.
#pragma once

#include "grain/contract/measure.hpp"

namespace grain::bench {

using impl::summarize;
using impl::time_adaptive;
using impl::time_on;
using impl::time_region;
using impl::Timing;

}  // namespace grain::bench
