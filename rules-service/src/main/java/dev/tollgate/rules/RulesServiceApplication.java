package dev.tollgate.rules;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class RulesServiceApplication {

    public static void main(String[] args) {
        SpringApplication.run(RulesServiceApplication.class, args);
    }
}
