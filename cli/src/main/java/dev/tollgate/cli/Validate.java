package dev.tollgate.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code tollgate validate -f rules/}: every file judged offline, every problem listed with its file and field. */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Read every domain file offline and list each problem with its file and field (exit 1 if any).")
final class Validate implements Callable<Integer> {

    @ParentCommand
    Tollgate tollgate;

    @Spec
    CommandSpec spec;

    @Mixin
    FileOption files;

    @Override
    public Integer call() {
        List<DomainFiles.Local> read = DomainFiles.read(files.path, tollgate.clock.instant());
        PrintWriter out = spec.commandLine().getOut();
        boolean valid = FileOption.printProblems(read, out);
        long invalid = read.stream().filter(file -> !file.valid()).count();
        out.println(valid ? read.size() + (read.size() == 1 ? " file" : " files") + " valid"
                : invalid + " of " + read.size() + (read.size() == 1 ? " file" : " files") + " invalid");
        out.flush();
        return valid ? ExitCodes.OK : ExitCodes.REFUSED;
    }
}
