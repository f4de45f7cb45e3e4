/** The design's demo rules, loaded through rules-service's admin API, and the curl walkthrough printed for them. */
package dev.tollgate.devstack.demo;
