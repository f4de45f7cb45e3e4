package dev.tollgate.deploy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Read-only navigation through parsed YAML (maps, lists, scalars), so that a test reads as the path it
 * checks: {@code deployment.at("spec", "template", "spec").items("containers")}. A missing step yields an
 * absent tree rather than an exception, so assertions on absence read as plainly as on presence.
 */
final class Tree {

    private static final Tree ABSENT = new Tree(null);

    private final Object value;

    private Tree(Object value) {
        this.value = value;
    }

    static Tree of(Object value) {
        return value == null ? ABSENT : new Tree(value);
    }

    Tree at(String... path) {
        Object current = value;
        for (String step : path) {
            if (!(current instanceof Map<?, ?> map)) {
                return ABSENT;
            }
            current = map.get(step);
        }
        return of(current);
    }

    List<Tree> items(String... path) {
        Object list = at(path).value;
        return list instanceof List<?> l ? l.stream().map(Tree::of).toList() : List.of();
    }

    /** The scalars of the list at {@code path}, as text. */
    List<String> texts(String... path) {
        return items(path).stream().map(Tree::text).toList();
    }

    /** The item of the list at {@code path} whose {@code name} is {@code name}: a container, an env var, a volume. */
    Tree named(String name, String... path) {
        return find(item -> name.equals(item.at("name").text()), path).orElse(ABSENT);
    }

    Optional<Tree> find(Predicate<Tree> predicate, String... path) {
        return items(path).stream().filter(predicate).findFirst();
    }

    boolean exists() {
        return value != null;
    }

    /** The scalar as text (numbers and booleans too), or null when absent. */
    String text() {
        return value == null ? null : String.valueOf(value);
    }

    Object value() {
        return value;
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> map() {
        return value instanceof Map<?, ?> ? (Map<String, Object>) value : Map.of();
    }

    @Override
    public String toString() {
        return String.valueOf(value);
    }
}
