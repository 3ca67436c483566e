// refcount_t's steps under the name of the primitive that takes them, for primitives built on
// a refcount_t: kref_get() is refcount_inc(), and its trace says kref_get. Not a model API
// (models use refcount.hpp).
#pragma once

#include "refcount.hpp"

namespace lockcheck {

void refcount_set_as(const char* op, refcount_t* r, int n);
unsigned int refcount_read_as(const char* op, const refcount_t* r);
void refcount_add_as(const char* op, int i, refcount_t* r);
bool refcount_add_not_zero_as(const char* op, int i, refcount_t* r);
bool refcount_sub_and_test_as(const char* op, int i, refcount_t* r);

} // namespace lockcheck
