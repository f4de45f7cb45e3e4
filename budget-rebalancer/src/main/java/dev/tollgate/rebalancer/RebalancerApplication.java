package dev.tollgate.rebalancer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class RebalancerApplication {

    public static void main(String[] args) {
        SpringApplication.run(RebalancerApplication.class, args);
    }
}
