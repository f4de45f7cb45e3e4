package dev.tollgate.cli;

import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** {@code -f}: the domain files a command works on, and how their problems are listed. */
final class FileOption {

    @Option(names = {"-f", "--file"}, required = true, paramLabel = "PATH",
            description = "a domain file, or a directory whose *.yaml, *.yml and *.json files are each one domain")
    Path path;

    /** Each problem as {@code file: field: message}; true when there was none. */
    static boolean printProblems(List<DomainFiles.Local> files, PrintWriter out) {
        boolean valid = true;
        for (DomainFiles.Local file : files) {
            for (var problem : file.problems()) {
                valid = false;
                out.println(file.path() + ": " + (problem.field().isEmpty() ? "" : problem.field() + ": ") + problem.message());
            }
        }
        out.flush();
        return valid;
    }
}
