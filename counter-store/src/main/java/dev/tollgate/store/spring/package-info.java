/**
 * The counter store on Spring Data Redis: the read port over the connection factory Spring Boot configures
 * from {@code spring.data.redis.*}, and the native cluster client the store is handed. The only package of
 * the module that needs Spring (an optional dependency).
 */
package dev.tollgate.store.spring;
