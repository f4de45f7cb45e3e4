/**
 * Checks that a service's configuration reference in docs/ names every property its build declares.
 */
package dev.tollgate.testsupport.config;
