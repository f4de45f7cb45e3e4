/**
 * The {@code tollgate} command: a directory of rules-as-code files judged offline by the shared reader and validators
 * ({@code validate}), compared with rules-service ({@code diff}), applied ({@code apply}) and written back
 * ({@code export}), with exit codes a CI job can branch on ({@link dev.tollgate.cli.ExitCodes}).
 */
package dev.tollgate.cli;
