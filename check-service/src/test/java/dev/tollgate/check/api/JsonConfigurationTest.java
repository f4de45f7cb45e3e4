package dev.tollgate.check.api;

import dev.tollgate.common.wire.WireFormat;
import org.junit.jupiter.api.Test;
import org.springframework.boot.http.codec.CodecCustomizer;
import org.springframework.http.codec.ClientCodecConfigurer;
import org.springframework.http.codec.CodecConfigurer;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** The check's codecs as every configurer gets them from {@link JsonConfiguration}. */
class JsonConfigurationTest {

    private final CodecCustomizer customizer = new JsonConfiguration()
            .strictRequestBodies(new CheckJson(WireFormat.configure(JsonMapper.builder()).build()));

    /** CheckApiIT's scrape raised its client's limit to 4 MiB, and the server's with it: the decoder was one object. */
    @Test
    void aClientsBodyLimitIsNotTheServers() {
        ServerCodecConfigurer server = ServerCodecConfigurer.create();
        server.defaultCodecs().maxInMemorySize(64 * 1024);
        customizer.customize(server);
        ClientCodecConfigurer client = ClientCodecConfigurer.create();
        customizer.customize(client);

        client.defaultCodecs().maxInMemorySize(4 << 20);

        assertThat(checkDecoder(server).getMaxInMemorySize()).isEqualTo(64 * 1024);
        assertThat(checkDecoder(client).getMaxInMemorySize()).isEqualTo(4 << 20);
    }

    private static CheckRequestDecoder checkDecoder(CodecConfigurer codecs) {
        return codecs.getReaders().stream()
                .filter(reader -> reader instanceof DecoderHttpMessageReader<?> decoding && decoding.getDecoder() instanceof CheckRequestDecoder)
                .map(reader -> (CheckRequestDecoder) ((DecoderHttpMessageReader<?>) reader).getDecoder())
                .findFirst().orElseThrow();
    }
}
