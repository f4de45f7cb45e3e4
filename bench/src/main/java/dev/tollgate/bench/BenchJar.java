package dev.tollgate.bench;

/**
 * How the bench's jar is built and run, and the commit it was built from: what a report names so that a reader
 * can tell what ran and run it again. A leaf, so that a scenario that writes its own report (the soak) need not
 * reach for {@link BenchMain}, which runs it.
 */
public final class BenchJar {

    // check-service too: scenario 8 runs its jar
    public static final String BUILD = "./mvnw -B -q -pl bench,check-service -am package -DskipTests";
    public static final String RUN = "java -jar bench/target/tollgate-bench.jar";

    private BenchJar() {
    }

    /**
     * The commit the running jar was built from, stamped at build time (git.properties): a work tree that
     * moved on since the build, or a stale jar, can no longer lend the report another commit's name.
     */
    public static String builtCommit() {
        try (java.io.InputStream in = BenchJar.class.getResourceAsStream("/git.properties")) {
            if (in == null) {
                return "unknown (built without git)";
            }
            java.util.Properties git = new java.util.Properties();
            git.load(in);
            return git.getProperty("git.commit.id.describe", git.getProperty("git.commit.id.abbrev", "unknown"));
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
