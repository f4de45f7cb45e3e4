/**
 * The support console under {@code /console/}: server-rendered pages (Thymeleaf, htmx from its webjar)
 * over the same catalogs, usage reader and change log as the API, never a second implementation of
 * them. Each page has one adapter from the service's types to what it shows ({@link
 * dev.tollgate.rules.console.KeyPage}, {@link dev.tollgate.rules.console.RulePage}), so a change to
 * those types is met in one place.
 */
package dev.tollgate.rules.console;
