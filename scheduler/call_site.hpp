// CallSite: the line of a model that made a step or a violation, as reports name it
// ("rename_pin.cpp:142 btrfs_sync_log"). A step keeps only the compiler's std::source_location
// (one pointer); it becomes a CallSite when a trace is recorded or a violation reported.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>

namespace lockcheck::detail {

struct CallSite {
    std::string file; // the base name only, so that reports match between checkouts
    std::uint32_t line = 0;
    std::string function; // bare: "btrfs_sync_log", "setup::<lambda>"

    // Whether a model call made it: a default std::source_location names no file.
    bool known() const { return !file.empty(); }
    // "rename_pin.cpp:142 btrfs_sync_log"; empty if not known.
    std::string text() const;
    bool operator==(const CallSite&) const = default;
};

CallSite call_site(const std::source_location& location);

// The bare name of the function in GCC's or clang's function_name() text: "void lockcheck::
// protocols::{anonymous}::btrfs_sync_log(lockcheck::protocols::{anonymous}::btrfs_root*)" is
// "btrfs_sync_log". Scopes, the return type, parameters, qualifiers and template arguments
// go; operators keep their symbol ("operator()"); a lambda is named after the function it is
// written in, one "::<lambda>" per level ("setup(int)::<lambda()>" is "setup::<lambda>", and
// so is clang's "setup(int)::(anonymous class)::operator()() const").
std::string bare_function_name(std::string_view pretty);

} // namespace lockcheck::detail
