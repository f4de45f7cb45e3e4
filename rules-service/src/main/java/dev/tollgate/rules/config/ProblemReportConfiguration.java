package dev.tollgate.rules.config;

import dev.tollgate.rules.problem.ProblemReportValve;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tomcat reports its own errors as problem details ({@link ProblemReportValve}): the host's error report valve
 * is ours, and Spring Boot's (an {@link ErrorReportValve} that writes Tomcat's HTML page without the server's
 * version) is taken out before the host starts, so that exactly one report valve answers.
 */
@Configuration(proxyBeanMethods = false)
class ProblemReportConfiguration {

    @Bean
    WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemReports() {
        return factory -> factory.addContextCustomizers(context -> {
            StandardHost host = (StandardHost) context.getParent();
            host.setErrorReportValveClass(ProblemReportValve.class.getName());
            host.addLifecycleListener(event -> {
                if (Lifecycle.BEFORE_START_EVENT.equals(event.getType())) {
                    for (Valve valve : host.getPipeline().getValves()) {
                        if (valve instanceof ErrorReportValve && !(valve instanceof ProblemReportValve)) {
                            host.getPipeline().removeValve(valve);
                        }
                    }
                }
            });
        });
    }
}
