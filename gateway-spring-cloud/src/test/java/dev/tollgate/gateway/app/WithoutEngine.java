package dev.tollgate.gateway.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The class path of a gateway in client mode that did not add tollgate-limiter: the engine, the counter store and
 * Lettuce are not there (their classes, and their jars' resources). The adapter's own classes ({@code dev.tollgate.gateway}) are defined by this loader, so every
 * class they name resolves through it, as in such an application; everything else comes from the test's class path.
 */
public final class WithoutEngine extends ClassLoader {

    static final List<String> HIDDEN = List.of("dev.tollgate.limiter.", "dev.tollgate.store.", "io.lettuce.");
    /** Their jars (or the reactor's class folders), whose resources, auto-configuration lists included, are hidden too. */
    static final List<String> HIDDEN_JARS = List.of("/tollgate-limiter", "/limiter/target/", "/tollgate-counter-store", "/counter-store/target/",
            "/lettuce-core");

    public WithoutEngine(ClassLoader parent) {
        super(parent);
    }

    @Override
    public URL getResource(String name) {
        for (Enumeration<URL> found = getResources(name); found.hasMoreElements(); ) {
            return found.nextElement();
        }
        return null;
    }

    @Override
    public Enumeration<URL> getResources(String name) {
        try {
            List<URL> visible = new ArrayList<>();
            for (URL url : Collections.list(getParent().getResources(name))) {
                if (HIDDEN_JARS.stream().noneMatch(url.toString()::contains)) {
                    visible.add(url);
                }
            }
            return Collections.enumeration(visible);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        for (String hidden : HIDDEN) {
            if (name.startsWith(hidden)) {
                throw new ClassNotFoundException(name + " (hidden: a gateway in client mode without tollgate-limiter)");
            }
        }
        if (!name.startsWith("dev.tollgate.gateway.")) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    if (in == null) {
                        throw new ClassNotFoundException(name);
                    }
                    byte[] bytes = in.readAllBytes();
                    loaded = defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }
}
