package dev.tollgate.check.startup;

import dev.tollgate.check.tracing.TracingSwitch;
import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The choices of configuration that Spring AOT fixes in the build, kept honest. AOT processing evaluates the
 * conditions once, in the build, and a pod started with {@code -Dspring.aot.enabled=true} runs the beans they
 * chose whatever its own configuration says: seen while measuring, a build processed without a management port of
 * its own, started with one, ran no management server at all (no probes, no scrape) and said nothing. {@link Recorder}
 * writes the choices the build saw into the jar; at start-up with AOT on, {@link Guard} compares the pod's with them
 * and refuses to start on any difference, naming the setting and both ways out. Without AOT, conditions are
 * evaluated at start-up as usual and nothing is compared.
 */
public final class AotChoices {

    static final String RESOURCE = "META-INF/tollgate/aot-choices.properties";
    static final String RULES_SERVICE = "tollgate.rules.service-url";
    static final String GRPC = "tollgate.grpc.enabled";
    static final String MANAGEMENT_PORT = "management.server.port";

    private AotChoices() {
    }

    /** Each choice as the conditions reading it see it, keyed by the property an operator sets. */
    static Map<String, String> of(Environment environment) {
        Map<String, String> choices = new TreeMap<>();
        choices.put(TracingSwitch.EXPORT, TracingSwitch.tracing(environment) ? "on" : "off");
        choices.put(RULES_SERVICE, StringUtils.hasText(environment.getProperty(RULES_SERVICE))
                ? "set (rules from rules-service)" : "empty (rules from the file)");
        choices.put(GRPC, "true".equalsIgnoreCase(environment.getProperty(GRPC, "true")) ? "on" : "off");
        choices.put(MANAGEMENT_PORT, switch (ManagementPortType.get(environment)) {
            case DIFFERENT -> "a port of its own";
            case SAME -> "the server's port";
            case DISABLED -> "disabled";
        });
        return choices;
    }

    /** What differs between the build's choices and the pod's, a line each by property; empty when nothing does. */
    static Map<String, String> differences(Map<String, String> built, Map<String, String> now) {
        Map<String, String> differences = new LinkedHashMap<>();
        built.forEach((property, choice) -> {
            String current = now.get(property);
            if (current != null && !current.equals(choice)) {
                differences.put(property, "built for " + choice + "; this pod's configuration: " + current);
            }
        });
        return differences;
    }

    static String write(Map<String, String> choices) {
        Properties properties = new Properties();
        properties.putAll(choices);
        StringWriter out = new StringWriter();
        try {
            properties.store(out, "What check-service's AOT processing chose (AotChoices)");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    static Map<String, String> read(String text) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> choices = new TreeMap<>();
        properties.stringPropertyNames().forEach(name -> choices.put(name, properties.getProperty(name)));
        return choices;
    }

    /** Why a pod is refused, or null when its configuration is the one its build was processed for. */
    static String refusal(String recorded, Environment environment) {
        if (recorded == null) {
            return "spring.aot.enabled is true, but this build holds no " + RESOURCE + ": it was not AOT-processed by"
                    + " check-service's build. Start it with -Dspring.aot.enabled=false.";
        }
        Map<String, String> differences = differences(read(recorded), of(environment));
        if (differences.isEmpty()) {
            return null;
        }
        StringBuilder message = new StringBuilder("spring.aot.enabled is true, and this build's AOT processing fixed choices"
                + " that this pod's configuration makes otherwise:");
        differences.forEach((property, difference) -> message.append("\n  ").append(property).append(": ").append(difference));
        return message.append("\nStart it without AOT (-Dspring.aot.enabled=false in JAVA_TOOL_OPTIONS), or build for this"
                + " configuration (process-aot's arguments in check-service/pom.xml).").toString();
    }

    /** In the build's AOT processing: the choices it made, as a resource of the jar. */
    static final class Recorder implements BeanFactoryInitializationAotProcessor {

        @Override
        public BeanFactoryInitializationAotContribution processAheadOfTime(ConfigurableListableBeanFactory beanFactory) {
            if (beanFactory.getParentBeanFactory() != null) {
                // the management server's context: the application's records for both
                return null;
            }
            String choices = write(of(beanFactory.getBean(Environment.class)));
            return (generation, code) -> generation.getGeneratedFiles().addResourceFile(RESOURCE, choices);
        }
    }

    /** At start-up, once the configuration is read and before any bean is built. */
    static final class Guard implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

        @Override
        public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
            if (!AotDetector.useGeneratedArtifacts()) {
                return;
            }
            String refusal = refusal(recorded(), event.getEnvironment());
            if (refusal != null) {
                throw new IllegalStateException(refusal);
            }
        }

        private static String recorded() {
            try (InputStream in = AotChoices.class.getClassLoader().getResourceAsStream(RESOURCE)) {
                return in == null ? null : new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
