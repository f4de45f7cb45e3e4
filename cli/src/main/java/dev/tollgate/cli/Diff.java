package dev.tollgate.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code tollgate diff}: what applying the files would change, from {@code POST /v1/config:diff}, which a reader's token
 * (scope ratelimit:read) may call: a pull request's check. Exit 3 when anything would change, so CI can tell.
 */
@Command(name = "diff", mixinStandardHelpOptions = true,
        description = "Show, field by field, what applying the files would change (read scope). Exit 0: nothing; 3: something.")
final class Diff implements Callable<Integer> {

    @ParentCommand
    Tollgate tollgate;

    @Spec
    CommandSpec spec;

    @Mixin
    FileOption files;

    @Mixin
    ServerOptions server;

    @Option(names = "--digests-out", paramLabel = "FILE",
            description = "write each domain's digest as stored now, for apply --digests: an apply refused if the domain changes meanwhile")
    Path digestsOut;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<DomainFiles.Local> read = DomainFiles.read(files.path, tollgate.clock.instant());
        if (!FileOption.printProblems(read, out)) {
            return ExitCodes.REFUSED;
        }
        RulesApi api = server.api(tollgate.env, false);
        int exit = ExitCodes.OK;
        Map<String, String> digests = new LinkedHashMap<>();
        for (DomainFiles.Local file : read) {
            RulesApi.Answer answer = api.diff(file);
            Map<String, Object> report = answer.ok() ? answer.object() : null;
            if (report == null) {
                exit = ExitCodes.worst(exit, Commands.refused(out, file, answer));
                if (exit == ExitCodes.UNAVAILABLE) {
                    return exit;
                }
                continue;
            }
            ReportText.report(report).forEach(out::println);
            digests.put(file.domain(), String.valueOf(report.get("digest_before")));
            if (Boolean.TRUE.equals(report.get("changed"))) {
                exit = ExitCodes.worst(exit, ExitCodes.CHANGES);
            }
        }
        out.flush();
        if (digestsOut != null && exit != ExitCodes.REFUSED) {
            Digests.write(digestsOut, digests);
        }
        return exit;
    }
}
