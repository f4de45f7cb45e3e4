/** Settings and wiring: the one place where the engine is assembled from configuration. */
package dev.tollgate.check.config;
