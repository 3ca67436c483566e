// refcount_t's steps under the name of the primitive that takes them, for primitives built on
// a refcount_t: kref_get() is refcount_inc(), and its trace says kref_get. Not a model API
// (models use refcount.hpp).
#pragma once

#include "refcount.hpp"

namespace lockcheck::detail {

void refcount_set_as(const char* op, refcount_t* r, int n, std::source_location loc);
unsigned int refcount_read_as(const char* op, const refcount_t* r, std::source_location loc);
void refcount_add_as(const char* op, int i, refcount_t* r, std::source_location loc);
bool refcount_add_not_zero_as(const char* op, int i, refcount_t* r, std::source_location loc);
bool refcount_sub_and_test_as(const char* op, int i, refcount_t* r, std::source_location loc);

} // namespace lockcheck::detail
