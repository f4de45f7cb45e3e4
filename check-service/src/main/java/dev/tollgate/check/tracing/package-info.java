/** Tracing on or off: off, no tracer on the check's path at all; on, the check's spans under the HTTP request's. */
package dev.tollgate.check.tracing;
