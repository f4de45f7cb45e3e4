/**
 * Load generation and what it records: open-loop schedules measured from the intended send time (no
 * coordinated omission), closed loops with a fixed number of requests in flight, and timelines of
 * answers and store calls in 10 ms slots.
 */
package dev.tollgate.bench.load;
