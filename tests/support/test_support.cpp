// tests/support/test_support.cpp: the test-support library's translation unit (test_support.h is
// header-only; this keeps terrazo_reference a library even when no *_reference.cpp is present).
#include "tests/support/test_support.h"
