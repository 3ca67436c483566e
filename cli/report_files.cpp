// Writing the report files of a run: each to a temporary file beside it, all renamed into
// place once every one is written; a drawing that cannot be made is left out with a warning.
#include "report_files.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/graph.hpp"
#include "reports/html_report.hpp"
#include "reports/junit.hpp"

namespace lockcheck::detail::cli {

namespace {

namespace fs = std::filesystem;

// Throws if `path` is a file its user made read-only: the rename that puts a new file in its
// place would replace it all the same (it asks only for the directory). access() answers as
// open() would, except for root, whom it lets write anything: there a file with no write
// permission for anyone (chmod 444) is what read-only means.
void check_not_read_only(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return; // a new file
    const bool read_only = ::geteuid() == 0 ? (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0
                                            : ::access(path.c_str(), W_OK) != 0 && errno == EACCES;
    if (read_only) throw std::runtime_error("cannot write " + path + ": " + std::strerror(EACCES));
}

// Files written under temporary names beside the ones they replace (a rename within one
// directory is atomic), so that a run that fails half-way leaves every file as it was:
// commit() renames them all into place, and removes those discarded; whatever is not committed
// is removed.
class StagedFiles {
  public:
    StagedFiles() = default;
    StagedFiles(const StagedFiles&) = delete;
    StagedFiles& operator=(const StagedFiles&) = delete;
    ~StagedFiles() {
        for (const Staged& s : staged_)
            std::remove(s.temporary.c_str());
    }

    // A new, empty temporary file to write instead of `path`, in its directory and with its
    // extension (Graphviz picks the format by it): ".NAME.XXXXXX.EXT".
    std::string stage(const std::string& path) {
        if (fs::is_directory(path))
            throw std::runtime_error("cannot write " + path + ": a directory");
        check_not_read_only(path);
        const fs::path p(path);
        const std::string ext = p.extension().string();
        std::string temporary =
            (p.parent_path() / ("." + p.filename().string() + ".XXXXXX" + ext)).string();
        const int fd = mkstemps(temporary.data(), static_cast<int>(ext.size()));
        if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
        // mkstemps makes it private; the file replacing `path` gets a new file's permissions.
        const mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
        close(fd);
        staged_.push_back(Staged{temporary, path});
        return temporary;
    }

    void stage_text(const std::string& path, const std::string& text) {
        std::ofstream out(stage(path), std::ios::binary);
        out << text;
        out.close();
        if (!out) throw std::runtime_error("cannot write " + path);
    }

    // `path` will not be written after all: its temporary file goes now, and commit()
    // removes what an earlier run left there, which would pass for this run's.
    void discard(const std::string& path) {
        for (auto s = staged_.begin(); s != staged_.end(); ++s)
            if (s->path == path) {
                std::remove(s->temporary.c_str());
                staged_.erase(s);
                break;
            }
        discarded_.push_back(path);
    }

    void commit() {
        for (const Staged& s : staged_)
            if (std::rename(s.temporary.c_str(), s.path.c_str()) != 0)
                throw std::runtime_error("cannot write " + s.path + ": " + std::strerror(errno));
        staged_.clear();
        for (const std::string& path : discarded_)
            std::remove(path.c_str());
        discarded_.clear();
    }

  private:
    struct Staged {
        std::string temporary, path;
    };
    std::vector<Staged> staged_;
    std::vector<std::string> discarded_;
};

// `text` with every `from` in it replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// Draws `path` among the staged files: `draw` writes the temporary file it is given. A drawing
// that cannot be made is discarded with a warning (naming `path`, not the temporary file);
// returns the temporary file, or "" then.
std::string stage_drawing(StagedFiles& staged, const std::string& path,
                          const std::function<void(const std::string&)>& draw,
                          std::vector<std::string>& warnings) {
    const std::string temporary = staged.stage(path);
    try {
        draw(temporary);
        return temporary;
    } catch (const std::runtime_error& e) {
        staged.discard(path);
        warnings.push_back(replaced(e.what(), temporary, path));
        return "";
    }
}

// Whether `path` can be written: a temporary file beside it can be made (and is removed).
void check_writable(const std::string& path) {
    StagedFiles probe;
    probe.stage(path);
}

void create_report_dir(const std::string& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// trace.svg, trace-2.svg, trace-3.svg...
std::string numbered(const std::string& path, std::size_t index) {
    if (index == 0) return path;
    const fs::path p(path);
    return (p.parent_path() /
            (p.stem().string() + "-" + std::to_string(index + 1) + p.extension().string()))
        .string();
}

// --worst-wait's drawing in a --report directory.
const char* const kWaitDrawing = "worst-wait.svg";

std::string drawing_name(std::size_t index) {
    return "counterexample-" + std::to_string(index + 1) + ".svg";
}

// The drawing a staged file holds; "" if it could not be made.
std::string drawing_text(const std::string& temporary) {
    return temporary.empty() ? "" : read_text(temporary);
}

void stage_report_dir(StagedFiles& staged, const std::string& dir, const RunReport& report,
                      bool full_trace, RenderGraph render, std::vector<std::string>& warnings) {
    std::vector<std::string> drawings;
    for (std::size_t i = 0; i < report.counterexamples.size(); ++i) {
        const Counterexample& c = report.counterexamples[i];
        drawings.push_back(drawing_text(stage_drawing(
            staged, (fs::path(dir) / drawing_name(i)).string(),
            [&](const std::string& svg) {
                write_trace_graph(c.trace, c.violation, svg, full_trace, render);
            },
            warnings)));
    }
    std::string wait_drawing;
    if (report.worst_wait)
        wait_drawing = drawing_text(stage_drawing(
            staged, (fs::path(dir) / kWaitDrawing).string(),
            [&](const std::string& svg) {
                write_wait_graph(report.worst_wait->trace, report.worst_wait->span, svg, full_trace,
                                 render);
            },
            warnings));
    staged.stage_text((fs::path(dir) / "index.html").string(),
                      to_html(report, drawings, full_trace, wait_drawing));
}

// The drawings an earlier run left in a reused --report directory beyond this run's `kept`:
// its index.html no longer shows them.
// Removes the files PREFIX<n>SUFFIX in `dir` numbered above `kept` (n written in decimal, without
// leading zeros, from `lowest` on): the numbered drawings an earlier run with more
// counterexamples left, which this run's output no longer has.
void remove_stale_numbered(const fs::path& dir, const std::string& prefix,
                           const std::string& suffix, std::size_t lowest, std::size_t kept) {
    std::error_code ec;
    for (const fs::directory_entry& e :
         fs::directory_iterator(dir.empty() ? fs::path(".") : dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string number =
            name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        if (number.find_first_not_of("0123456789") != std::string::npos || number[0] == '0')
            continue;
        const std::size_t n = number.size() > 9 ? SIZE_MAX : std::stoul(number);
        if (n >= lowest && n > kept) fs::remove(e.path(), ec);
    }
}

} // namespace

std::string shell_word(const std::string& word) {
    const bool plain = !word.empty() &&
                       word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-./=:,+@%") == std::string::npos;
    if (plain) return word;
    std::string quoted = "'";
    for (char c : word)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string command_line(int argc, const char* const* argv) {
    std::string line;
    for (int i = 0; i < argc; ++i)
        line += (i ? " " : "") + shell_word(argv[i]);
    return line;
}

bool check_report_files(const ReportFiles& files, std::string& error) {
    try {
        for (const std::string* path : {&files.trace, &files.json, &files.junit})
            if (!path->empty()) check_writable(*path);
        if (!files.report.empty()) {
            create_report_dir(files.report);
            check_writable((fs::path(files.report) / "index.html").string());
        }
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
    return true;
}

bool check_check_all_files(const std::string& json, const std::string& junit, std::string& error) {
    ReportFiles files;
    files.json = json;
    files.junit = junit;
    return check_report_files(files, error);
}

bool write_report_files(const ReportFiles& files, const RunReport& report, std::string& error,
                        std::vector<std::string>& warnings) {
    try {
        StagedFiles staged;
        // --worst-wait: its drawing is FILE, the counterexamples' come after it.
        const std::size_t first = report.worst_wait ? 1 : 0;
        if (!files.trace.empty() && report.worst_wait)
            stage_drawing(
                staged, files.trace,
                [&](const std::string& file) {
                    write_wait_graph(report.worst_wait->trace, report.worst_wait->span, file,
                                     files.full_trace, files.render);
                },
                warnings);
        if (!files.trace.empty())
            for (std::size_t i = 0; i < report.counterexamples.size(); ++i) {
                const Counterexample& c = report.counterexamples[i];
                stage_drawing(
                    staged, numbered(files.trace, first + i),
                    [&](const std::string& file) {
                        write_trace_graph(c.trace, c.violation, file, files.full_trace,
                                          files.render);
                    },
                    warnings);
            }
        if (!files.json.empty()) staged.stage_text(files.json, to_json(report));
        if (!files.junit.empty()) staged.stage_text(files.junit, to_junit({report}));
        if (!files.report.empty()) {
            create_report_dir(files.report);
            stage_report_dir(staged, files.report, report, files.full_trace, files.render,
                             warnings);
        }
        staged.commit();
        if (!files.trace.empty()) {
            // FILE, FILE-2.EXT, ...: those an earlier run drew beyond this run's go, FILE too
            // when this run drew nothing, so that every drawing there is of this run.
            const std::size_t drawn = first + report.counterexamples.size();
            const fs::path p(files.trace);
            std::error_code ec;
            if (drawn == 0) fs::remove(p, ec);
            remove_stale_numbered(p.parent_path(), p.stem().string() + "-", p.extension().string(),
                                  2, drawn);
        }
        if (!files.report.empty()) {
            remove_stale_numbered(files.report, "counterexample-", ".svg", 1,
                                  report.counterexamples.size());
            std::error_code ec; // one an earlier run left, which index.html no longer shows
            if (!report.worst_wait) fs::remove(fs::path(files.report) / kWaitDrawing, ec);
        }
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
    return true;
}

bool write_compare_files(const std::string& json, const std::string& report,
                         const CompareReport& comparison, std::string& error,
                         std::vector<std::string>& warnings) {
    try {
        StagedFiles staged;
        if (!json.empty()) staged.stage_text(json, to_json(comparison));
        if (!report.empty()) {
            std::vector<std::string> drawings;
            for (const bool after : {false, true}) {
                // A side compare stopped before has no report.
                if (side_run(comparison, after) == SideRun::not_run) {
                    drawings.push_back("");
                    continue;
                }
                const RunReport* side = after ? &comparison.after : &comparison.before;
                const std::string& variant = side->summary.variant;
                const std::string dir = (fs::path(report) / variant).string();
                create_report_dir(dir);
                stage_report_dir(staged, dir, *side, false, &render_with_graphviz, warnings);
                drawings.push_back(side->worst_wait ? variant + "/" + kWaitDrawing : "");
            }
            staged.stage_text((fs::path(report) / "index.html").string(),
                              to_html(comparison, drawings));
        }
        staged.commit();
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
    return true;
}

bool write_check_all_files(const std::string& json, const std::string& junit,
                           const CheckAllReport& check_all, std::string& error) {
    try {
        StagedFiles staged;
        if (!json.empty()) staged.stage_text(json, to_json(check_all));
        if (!junit.empty())
            staged.stage_text(junit,
                              to_junit(check_all.runs, JUnitJudging::against_declared_verdict));
        staged.commit();
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
    return true;
}

} // namespace lockcheck::detail::cli
