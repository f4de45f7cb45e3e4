/** The written result: Markdown tables per scenario and PNG charts drawn with XChart. */
package dev.tollgate.bench.report;
