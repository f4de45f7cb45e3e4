package dev.tollgate.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Clock;
import java.util.function.Function;

/**
 * {@code tollgate}: the entry point, which holds what every command is given (the environment, for
 * {@code TOLLGATE_TOKEN} and {@code TOLLGATE_URL}, and the clock an override's expiry is judged by) and turns a
 * {@link Failure} into its message and exit code.
 */
@Command(name = "tollgate", mixinStandardHelpOptions = true, versionProvider = Tollgate.Version.class,
        description = "Rules kept in git: validate domain files offline, diff them against rules-service, apply them, export a domain.",
        subcommands = {Validate.class, Diff.class, Apply.class, Export.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
                "0:done; for diff, nothing would change",
                "1:refused: an invalid file, or an apply refused (the domain changed since it was diffed)",
                "2:no answer: bad arguments, rules-service unreachable or too slow, the token refused, a server error",
                "3:diff (or apply --dry-run): something would change"})
public final class Tollgate implements Runnable {

    final Function<String, String> env;
    final Clock clock;

    @Spec
    CommandSpec spec;

    Tollgate(Function<String, String> env, Clock clock) {
        this.env = env;
        this.clock = clock;
    }

    public static void main(String[] args) {
        System.exit(commandLine(System::getenv, Clock.systemUTC()).execute(args));
    }

    /** The command line with this environment and clock; tests give their own, and their own streams. */
    static CommandLine commandLine(Function<String, String> env, Clock clock) {
        CommandLine line = new CommandLine(new Tollgate(env, clock));
        line.setCaseInsensitiveEnumValuesAllowed(true);
        line.setExecutionExceptionHandler((error, failed, parsed) -> {
            PrintWriter err = failed.getErr();
            if (error instanceof Failure failure) {
                err.println(failed.getCommandName() + ": " + failure.getMessage());
                err.flush();
                return failure.exitCode();
            }
            err.println(failed.getCommandName() + ": unexpected failure: " + error);
            err.flush();
            return ExitCodes.UNAVAILABLE;
        });
        return line;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command: validate, diff, apply or export");
    }

    /** The version the jar's manifest carries (the Maven project's). */
    static final class Version implements CommandLine.IVersionProvider {

        @Override
        public String[] getVersion() {
            String version = Tollgate.class.getPackage().getImplementationVersion();
            return new String[] {"tollgate " + (version == null ? "(development build)" : version)};
        }
    }
}
