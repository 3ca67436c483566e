// The models one lockcheck binary checks. A model file registers itself with
// LOCKCHECK_MODEL(factory) at namespace scope, so that adding a model edits no file of
// lockcheck: the shipped protocols and examples register exactly as a user's models do.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "protocol.hpp"

namespace lockcheck::detail {

// Adds the model `make()` returns to the binary's models, at program start. Use
// LOCKCHECK_MODEL rather than naming this.
class ModelRegistration {
  public:
    explicit ModelRegistration(Protocol (*make)());
};

// The command's own words, which no model may be named: `lockcheck help COMMAND` describes each.
inline constexpr std::array<std::string_view, 6> kCommandNames = {"list",    "replay", "check-all",
                                                                  "compare", "merge",  "help"};

// Every registered model: the protocol models by name, then the benchmarks by name (an order
// that does not depend on how the binary was linked).
const std::vector<Protocol>& registered_models();
// nullptr if no registered model has that name.
const Protocol* find_registered_model(const std::string& name);
// What is wrong with the registered models, one line each (two with one name, a model with
// no variants, a variant or size named twice): a binary with any of these refuses to run.
// Empty when all is well. (A size option named like one of the command's own options is
// found by the command line itself.)
std::vector<std::string> registration_problems();
// The same questions, of any list of models.
std::vector<std::string> model_problems(const std::vector<Protocol>& models);

} // namespace lockcheck::detail

#define LOCKCHECK_MODEL_CONCAT_(a, b) a##b
#define LOCKCHECK_MODEL_NAME_(line) LOCKCHECK_MODEL_CONCAT_(lockcheck_model_registration_, line)
// LOCKCHECK_MODEL(rename_pin): registers the model that `lockcheck::Protocol rename_pin()`
// returns. Write it once per model, at namespace scope, in the file that defines it.
#define LOCKCHECK_MODEL(factory)                                                                   \
    static const ::lockcheck::detail::ModelRegistration LOCKCHECK_MODEL_NAME_(__LINE__) {          \
        &factory                                                                                   \
    }
