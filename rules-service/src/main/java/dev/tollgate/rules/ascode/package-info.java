/**
 * Rules as code: {@code POST /v1/config:apply} makes a domain what its file says (creates, replaces and deletes,
 * in one transaction, each through the catalog and history the single-object endpoints write), or with a dry run
 * answers the difference; {@code GET /v1/config:export} writes the domain back in the file's canonical form.
 */
package dev.tollgate.rules.ascode;
