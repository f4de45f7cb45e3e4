package dev.tollgate.cli;

import dev.tollgate.common.ascode.DomainFile.Format;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code tollgate export}: a domain as the service writes it ({@code GET /v1/config:export}), saved as
 * {@code <dir>/<domain>.yaml} byte for byte: the canonical form, which applied again changes nothing. Written to a
 * temporary file first and moved into place, so a failed run never leaves half a file in the repository.
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Write a domain's configuration as rules-service gives it to <dir>/<domain>.yaml (or .json), byte for byte.")
final class Export implements Callable<Integer> {

    @ParentCommand
    Tollgate tollgate;

    @Spec
    CommandSpec spec;

    @Mixin
    ServerOptions server;

    @Option(names = "--domain", required = true, paramLabel = "DOMAIN", description = "the domain to export; may be given more than once")
    List<String> domains;

    @Option(names = {"-o", "--output"}, paramLabel = "DIR", defaultValue = ".", description = "the directory to write to (default: ${DEFAULT-VALUE})")
    Path directory;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "yaml", description = "yaml or json (default: ${DEFAULT-VALUE})")
    Format format;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        for (String domain : domains) {
            // the domain becomes a file name: one that would land outside the directory is refused
            if (domain.isBlank() || domain.equals(".") || domain.equals("..") || domain.chars().anyMatch(c -> c == '/' || c == '\\' || c < 0x20)) {
                throw Failure.usage("domain " + domain + " cannot be a file name: export it with curl or choose another domain name");
            }
        }
        if (Files.exists(directory) && !Files.isDirectory(directory)) {
            throw Failure.usage(directory + " is not a directory");
        }
        RulesApi api = server.api(tollgate.env, false);
        for (String domain : domains) {
            RulesApi.Answer answer = api.export(domain, format);
            if (!answer.ok()) {
                out.println("domain " + domain + ": refused");
                ReportText.problem(answer).forEach(line -> out.println("  " + line));
                String hint = Commands.hint(answer.status());
                if (hint != null) {
                    out.println("  " + hint);
                }
                out.flush();
                return answer.exitCode();
            }
            Path target = directory.resolve(domain + "." + format.name().toLowerCase(Locale.ROOT));
            write(target, answer.body());
            out.println("wrote " + target + (answer.etag() == null ? "" : " (digest " + answer.etag() + ")"));
        }
        out.flush();
        return ExitCodes.OK;
    }

    private static void write(Path target, byte[] body) {
        try {
            Files.createDirectories(target.toAbsolutePath().getParent());
            Path temporary = Files.createTempFile(target.toAbsolutePath().getParent(), ".tollgate-export-", ".tmp");
            try {
                Files.write(temporary, body);
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException e) {
            throw Failure.usage("cannot write " + target + ": " + e.getMessage());
        }
    }
}
