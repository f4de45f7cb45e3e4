/**
 * The metric series the chart's dashboard and alerts rely on, and the check of a live scrape against them.
 */
package dev.tollgate.testsupport.metrics;
