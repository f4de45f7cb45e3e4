package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The services' images as Jib builds them (the parent pom's profile "jib"), read from the poms: a base pinned
 * by digest, a non-root user, the image names and ports the chart runs, and no JVM flags of the image's own in
 * the entrypoint (the chart's JAVA_TOOL_OPTIONS are the flags). Building one needs the base image's registry;
 * docs/operations.md, "Images", says how to build one offline against a local base tar.
 */
class JibImageTest {

    private static final Document PARENT = parse("pom.xml");

    @Test
    void pinsTheBaseImageByDigest() {
        assertThat(property(PARENT, "tollgate.image.base")).matches("eclipse-temurin:17-jre@sha256:[0-9a-f]{64}");
        assertThat(property(PARENT, "jib.version")).isEqualTo("3.5.2");
        assertThat(property(PARENT, "jib.skip")).as("only the services build an image").isEqualTo("true");
    }

    @Test
    void runsAsANonRootUserWithTheChartsJvmFlags() {
        Element jib = jibPlugin();

        assertThat(text(jib, "user")).matches("[1-9][0-9]*:[1-9][0-9]*");
        assertThat(jib.getElementsByTagName("jvmFlags").getLength()).as("the chart's JAVA_TOOL_OPTIONS are the flags").isZero();
        assertThat(jib.getElementsByTagName("entrypoint").getLength()).as("Jib's exec-form entrypoint: the JVM is PID 1 and gets SIGTERM").isZero();
        assertThat(text(jib, "goal")).isEqualTo("buildTar");
        assertThat(text(jib, "phase")).isEqualTo("package");
    }

    @ParameterizedTest
    @CsvSource({"check-service, 8080", "rules-service, 8081", "budget-rebalancer, 8082"})
    void buildsEachServiceAsTheImageTheChartRuns(String module, String port) {
        Document pom = parse(module + "/pom.xml");

        assertThat(property(pom, "jib.skip")).isEqualTo("false");
        assertThat(property(pom, "tollgate.image.name")).isEqualTo(module);
        assertThat(property(pom, "tollgate.image.port")).isEqualTo(port);
        assertThat(RepositoryFiles.read("helm/tollgate/values.yaml")).contains("repository: " + property(PARENT, "tollgate.image.namespace") + "/" + module);
    }

    @Test
    void namesTheTarsImageUnderNoRegistryNamespaceOfAnotherOwner() {
        // the tar is pushed by digest to the operator's registry; its own name must not be read as docker.io/tollgate/...
        assertThat(property(PARENT, "tollgate.image.registry")).isEqualTo("localhost");
        assertThat(text(jibPlugin(), "to")).isEqualTo(
                "${tollgate.image.registry}/${tollgate.image.namespace}/${tollgate.image.name}:${project.version}");
    }

    private static Element jibPlugin() {
        var plugins = PARENT.getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            Element plugin = (Element) plugins.item(i);
            if ("jib-maven-plugin".equals(text(plugin, "artifactId"))) {
                return plugin;
            }
        }
        throw new AssertionError("no jib-maven-plugin in pom.xml");
    }

    private static String property(Document pom, String name) {
        Node properties = pom.getDocumentElement().getElementsByTagName("properties").item(0);
        return text((Element) properties, name);
    }

    private static String text(Element parent, String tag) {
        Node node = parent.getElementsByTagName(tag).item(0);
        assertThat(node).as("<%s>", tag).isNotNull();
        return node.getTextContent().trim();
    }

    private static Document parse(String path) {
        try {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(RepositoryFiles.read(path).getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + path, e);
        }
    }
}
