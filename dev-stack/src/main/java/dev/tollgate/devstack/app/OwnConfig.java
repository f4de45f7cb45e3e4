package dev.tollgate.devstack.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Where a service's own {@code application.yml} is. Every service module ships one at the root of its
 * jar, and on one classpath {@code classpath:application.yml} is whichever jar comes first: without this,
 * check-service would start with rules-service's port, name and datasource, or the other way round.
 * The answer is the directory (or jar root) that holds the service's main class, given to Spring Boot as
 * {@code spring.config.location}, so profile files beside it ({@code application-dev.yml}) still apply.
 */
public final class OwnConfig {

    static final String FILE = "application.yml";

    private OwnConfig() {
    }

    /**
     * @return a {@code spring.config.location} value: the service's jar root or classes directory, ending in {@code /}
     * @throws IllegalStateException when the service's jar holds no application.yml
     */
    public static String locationOf(Class<?> application) {
        String root = codeRoot(application);
        List<String> candidates = new ArrayList<>();
        try {
            for (URL url : Collections.list(application.getClassLoader().getResources(FILE))) {
                String found = url.toString();
                candidates.add(found);
                if (found.equals(root + FILE)) {
                    return root;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not list the " + FILE + " files on the classpath", e);
        }
        throw new IllegalStateException("no " + FILE + " beside " + application.getName() + " (in " + root + "); on the classpath: " + candidates);
    }

    /**
     * The URL prefix that the class's own resources start with: a classes directory as it is, a jar as
     * {@code jar:<url>!/}, a jar nested in the dev stack's own jar as Spring Boot's loader names it already.
     */
    static String codeRoot(Class<?> application) {
        CodeSource source = application.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            throw new IllegalStateException("cannot tell which jar " + application.getName() + " came from");
        }
        String location = source.getLocation().toString();
        if (location.endsWith("/")) {
            return location;
        }
        if (location.startsWith("jar:")) {
            return location.endsWith("!/") ? location : location + "!/";
        }
        return "jar:" + location + "!/";
    }
}
