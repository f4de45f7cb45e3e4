/**
 * Who may ask for a check: an optional shared service token that gateways present on the HTTP and gRPC
 * check ports, so that only they can spend an account's limit.
 */
package dev.tollgate.check.access;
