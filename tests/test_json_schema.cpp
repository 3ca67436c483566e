// The JSON Schemas shipped in docs/ against what lockcheck writes: the report of every kind of
// run (check, replay, keep-going, limited, sampled, bounded) and check-all's document validate
// (python3-jsonschema, through tests/validate_json.py), a document that breaks the schema is
// refused, and the version the docs describe is the version the files carry.
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "lockcheck_binary.hpp"
#include "reports/json_report.hpp"
#include "temp_files.hpp"

#include <CppUTest/TestHarness.h>

using namespace lockcheck;
using namespace lockcheck::detail;
using namespace lockcheck::detail::testing;

namespace {

// The documents of one test, each in a file of its own, removed at its end.
class Documents {
  public:
    Documents() = default;
    Documents(const Documents&) = delete;
    Documents& operator=(const Documents&) = delete;
    ~Documents() {
        for (const std::string& p : paths_)
            std::remove(p.c_str());
    }
    std::string next() {
        paths_.push_back("/tmp/lockcheck-test-schema-" + std::to_string(::getpid()) + "-" +
                         std::to_string(paths_.size()) + ".json");
        return paths_.back();
    }
    const std::vector<std::string>& paths() const { return paths_; }

  private:
    std::vector<std::string> paths_;
};

// Runs lockcheck with `args` and --json into a new file of `docs`; returns the document.
std::string json_of(Documents& docs, std::vector<std::string> args, int exit_code) {
    const std::string path = docs.next();
    args.insert(args.end(), {"--json", path});
    const Run run = run_lockcheck(args);
    std::string what;
    for (const std::string& a : args)
        what += a + " ";
    CHECK_EQUAL_TEXT(exit_code, run.exit_code, (what + "\n" + run.err).c_str());
    const std::string json = read_file(path);
    CHECK_TEXT(!json.empty(), what.c_str());
    return json;
}

} // namespace

TEST_GROUP(JsonSchema){};

TEST(JsonSchema, the_report_of_every_kind_of_run_and_check_alls_document_validate) {
    Documents docs;
    // Each says its verdict, and its exit code as the process did.
    CHECK(contains(json_of(docs, {"rename-pin", "--variant", "no-pin"}, 1),
                   "\"verdict\": \"violation\",\n  \"exit_code\": 1,"));
    CHECK(contains(json_of(docs, {"rename-pin"}, 0),
                   "\"verdict\": \"verified\",\n  \"exit_code\": 0,"));
    CHECK(contains(json_of(docs, {"tree-lock", "--max-executions", "2"}, 3),
                   "\"verdict\": \"incomplete\",\n  \"exit_code\": 3,"));
    CHECK(contains(json_of(docs, {"rename-pin", "--depth", "2"}, 0),
                   "\"verdict\": \"no-violation-within-depth\""));
    CHECK(contains(json_of(docs, {"rename-pin", "--max-steps", "10"}, 3),
                   "\"verdict\": \"incomplete\",\n  \"exit_code\": 3,"));
    CHECK(contains(json_of(docs, {"rename-pin", "--strategy", "random", "--iterations", "5"}, 0),
                   "\"verdict\": \"no-violation-in-sample\""));
    CHECK(contains(json_of(docs, {"rename-pin", "--strategy", "pct", "--iterations", "5"}, 0),
                   "\"pct\": {"));
    CHECK(contains(json_of(docs, {"rename-pin", "--strategy", "dfs", "--preemptions", "1"}, 0),
                   "\"verdict\": \"no-violation-within-preemptions\""));
    json_of(docs, {"buffered-write", "--variant", "dio-begin-after-unlock", "--keep-going"}, 1);
    json_of(docs, {"rename-pin", "--variant", "no-pin", "--replay", "0.0.0.0.0.0.0.1.1.1.1.1.1.1"},
            1);
    // A replay of a saved report writes a report too.
    json_of(docs, {"buffered-write", "--variant", "relock-before-dio-end"}, 1);
    json_of(docs, {"replay", docs.paths().back()}, 1);
    const std::string all = json_of(docs, {"check-all", "rename-pin", "lastzero"}, 0);
    CHECK_TEXT(contains(all, "{\n  \"schema\": \"lockcheck-check-all\",\n  \"version\": 1,\n"
                             "  \"minor_version\": " +
                                 std::to_string(kReportMinorVersion) + ",\n"),
               all.c_str());
    CHECK_TEXT(contains(all, "  \"exit_code\": 0,\n  \"runs\": [\n"), all.c_str());
    const std::string errors = schema_errors(docs.paths());
    CHECK_TEXT(errors.empty(), errors.c_str());
}

// The check is not vacuous: what breaks the schema is refused, naming the document.
TEST(JsonSchema, a_document_that_breaks_the_schema_is_refused) {
    Documents docs;
    const std::string good = json_of(docs, {"rename-pin", "--variant", "no-pin"}, 1);
    const std::pair<std::string, std::string> breaks[] = {
        {"\"verdict\": \"violation\"", "\"verdict\": \"probably fine\""},
        {"\"exit_code\": 1,\n", ""},
        {"\"kind\": \"invariant\"", "\"kind\": \"oops\""},
        {"\"preempted\": false", "\"preempted\": 0"},
        {"\"model\": ", "\"unknown\": 1,\n  \"model\": "},
    };
    std::vector<std::string> bad_paths;
    for (const auto& [from, to] : breaks) {
        std::string bad = good;
        bad.replace(bad.find(from), from.size(), to);
        bad_paths.push_back(docs.next());
        std::ofstream(bad_paths.back(), std::ios::binary) << bad;
    }
    const std::string errors = schema_errors(bad_paths);
    for (std::size_t i = 0; i < bad_paths.size(); ++i)
        CHECK_TEXT(contains(errors, bad_paths[i] + ": "),
                   (breaks[i].first + " -> " + breaks[i].second + "\n" + errors).c_str());
    CHECK_TEXT(contains(errors, "5 documents, not all valid"), errors.c_str());
}

TEST(JsonSchema, the_docs_describe_the_version_the_files_carry) {
    const std::string version = "1." + std::to_string(kReportMinorVersion);
    const std::string doc = read_file(LOCKCHECK_SOURCE_DIR "/docs/json-schema.md");
    CHECK_TEXT(contains(doc, "# The JSON report (`lockcheck-report`, version " + version + ")"),
               doc.substr(0, 200).c_str());
    CHECK_TEXT(contains(doc, "This file describes version " + version + "."), version.c_str());
    for (const char* schema : {"lockcheck-report", "lockcheck-check-all"}) {
        const std::string text =
            read_file(std::string(LOCKCHECK_SOURCE_DIR "/docs/") + schema + ".schema.json");
        CHECK_TEXT(contains(text, "version " + version + ","), schema);
    }
}
