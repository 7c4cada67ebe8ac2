// The umbrella header: the whole public API of grain.
#pragma once

#include "grain/core.hpp"
