package dev.tollgate.deploy;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

/** The objects of one rendered release, looked up by kind and name. */
final class Manifests {

    private final List<Tree> objects;

    private Manifests(List<Tree> objects) {
        this.objects = objects;
    }

    static Manifests parse(String rendered) {
        Yaml yaml = new Yaml(new LoaderOptions());
        List<Tree> objects = StreamSupport.stream(yaml.loadAll(rendered).spliterator(), false)
                .filter(doc -> doc != null)
                .map(Tree::of)
                .toList();
        return new Manifests(objects);
    }

    List<Tree> ofKind(String kind) {
        return objects.stream().filter(o -> kind.equals(o.at("kind").text())).toList();
    }

    List<String> kinds() {
        return objects.stream().map(o -> o.at("kind").text()).toList();
    }

    /** The object of that kind and name; fails the test, listing what there is, when there is none. */
    Tree one(String kind, String name) {
        return ofKind(kind).stream()
                .filter(o -> name.equals(o.at("metadata", "name").text()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " named " + name + " among "
                        + objects.stream().map(o -> o.at("kind") + "/" + o.at("metadata", "name")).toList()));
    }

    boolean has(String kind, String name) {
        return ofKind(kind).stream().anyMatch(o -> name.equals(o.at("metadata", "name").text()));
    }

    /** An object's Helm hook annotations under their real names (see {@link TollgateChart#renderWithHooks}). */
    static Map<String, String> hookAnnotations(Tree object) {
        Map<String, String> hooks = new LinkedHashMap<>();
        object.at("metadata", "annotations").map().forEach((key, value) -> {
            if (key.startsWith(TollgateChart.RENAMED_HOOK_PREFIX)) {
                hooks.put("helm.sh/hook" + key.substring(TollgateChart.RENAMED_HOOK_PREFIX.length()), String.valueOf(value));
            }
        });
        return hooks;
    }
}
