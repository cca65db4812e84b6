// The declaration in include/CFuzzerDriver.h is all this target provides; libFuzzer's runtime defines it.
#include "CFuzzerDriver.h"
