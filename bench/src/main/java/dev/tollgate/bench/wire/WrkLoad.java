package dev.tollgate.bench.wire;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code wrk} (C, one thread, keep-alive HTTP/1.1) as the load generator, where it is on the {@code PATH}: the
 * issue's own baseline was measured with it. It costs a fraction of the bench's JVM client per request, so on
 * a 2-core machine the servers keep more of the cores, and what they show is closer to what they would do
 * with the load coming from other machines. It sends a fixed sample of the mix's check bodies, each request
 * a body drawn at random; paced, each connection waits {@code connections ÷ rate} between requests (wrk's
 * {@code delay()}), which makes an approximately fixed rate: wrk measures no latency from intended send times,
 * so only rates, CPU and allocation are read from these runs, never percentiles.
 */
public final class WrkLoad {

    private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in ([0-9.]+)(us|ms|s|m)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");
    private static final Pattern SOCKET_ERRORS = Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");

    private final Path wrk;
    private final Path script;

    private WrkLoad(Path wrk, Path script) {
        this.wrk = wrk;
        this.script = script;
    }

    /** What one run answered: requests completed (any status), those that were not 2xx, and socket errors. */
    public record Result(long requests, long non2xx, long socketErrors, double seconds) {

        public long answered() {
            return requests - non2xx;
        }

        public long failed() {
            return non2xx + socketErrors;
        }
    }

    /** wrk on the PATH, if there is one. */
    public static Optional<Path> find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "wrk");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** A load of these check bodies, POSTed as JSON; the script is written under {@code work}. */
    public static WrkLoad of(Path wrk, Path work, List<byte[]> bodies) {
        StringBuilder lua = new StringBuilder("local bodies = {\n");
        for (byte[] body : bodies) {
            lua.append("  \"").append(luaEscape(new String(body, StandardCharsets.UTF_8))).append("\",\n");
        }
        lua.append("}\n")
                .append("local requests = {}\n")
                .append("local pause = tonumber(os.getenv(\"TOLLGATE_WRK_DELAY_MS\") or \"0\")\n")
                .append("init = function(args)\n")
                .append("  for i, body in ipairs(bodies) do\n")
                .append("    requests[i] = wrk.format(\"POST\", \"").append(HttpWireClient.PATH)
                .append("\", {[\"Content-Type\"] = \"application/json\"}, body)\n")
                .append("  end\n")
                .append("end\n")
                .append("request = function() return requests[math.random(#requests)] end\n")
                .append("if pause > 0 then delay = function() return pause end end\n");
        Path script = work.resolve("wrk-mix.lua");
        try {
            Files.writeString(script, lua.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("could not write wrk's script", e);
        }
        return new WrkLoad(wrk, script);
    }

    /** As many requests as {@code connections} keep-alive connections carry, one at a time each, for {@code seconds}. */
    public Result saturate(String url, int connections, double seconds) {
        return run(url, connections, seconds, 0);
    }

    /** About {@code rate} requests a second: each of the connections waits connections ÷ rate between its requests. */
    public Result paced(String url, int connections, double seconds, double rate) {
        return run(url, connections, seconds, connections * 1000.0 / rate);
    }

    private Result run(String url, int connections, double seconds, double delayMs) {
        List<String> command = new ArrayList<>(List.of(wrk.toString(), "-t1", "-c" + connections,
                "-d" + Math.max(1, Math.round(seconds)) + "s", "-s", script.toString(), url));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("TOLLGATE_WRK_DELAY_MS", String.format(Locale.ROOT, "%.3f", delayMs));
        try {
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(Math.round(seconds) + 30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException("wrk failed: " + output);
            }
            return parse(output);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run wrk", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while wrk ran", e);
        }
    }

    static Result parse(String output) {
        Matcher requests = REQUESTS.matcher(output);
        if (!requests.find()) {
            throw new IllegalStateException("no request count in wrk's output: " + output);
        }
        double value = Double.parseDouble(requests.group(2));
        double seconds = switch (requests.group(3)) {
            case "us" -> value / 1e6;
            case "ms" -> value / 1e3;
            case "m" -> value * 60;
            default -> value;
        };
        Matcher non2xx = NON_2XX.matcher(output);
        Matcher socket = SOCKET_ERRORS.matcher(output);
        long errors = 0;
        if (socket.find()) {
            for (int i = 1; i <= 4; i++) {
                errors += Long.parseLong(socket.group(i));
            }
        }
        return new Result(Long.parseLong(requests.group(1)), non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0, errors, seconds);
    }

    private static String luaEscape(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
