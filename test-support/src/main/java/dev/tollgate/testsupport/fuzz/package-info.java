/**
 * What the HTTP fuzzers of check-service and rules-service share: the request a case sends, the run
 * that sends it (a timeout, one second try for a stall, the assertions every answer must pass) and the
 * figures a run prints. Each fuzzer keeps its own generators and the set-up of its service.
 */
package dev.tollgate.testsupport.fuzz;
