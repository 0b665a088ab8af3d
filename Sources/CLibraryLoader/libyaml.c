// libyaml's functions that Tether calls (Spec/YAMLReader.swift), each opening libyaml at the first call (loader.c
// says why and how).
#include "loader.h"

#if defined(__linux__)
#include <yaml.h>

FORWARD int yaml_parser_initialize(yaml_parser_t *parser) {
    REAL(tether_libyaml, yaml_parser_initialize)
    return yaml_parser_initialize_found(parser);
}

FORWARD void yaml_parser_set_input_string(yaml_parser_t *parser, const unsigned char *input, size_t size) {
    REAL(tether_libyaml, yaml_parser_set_input_string)
    yaml_parser_set_input_string_found(parser, input, size);
}

FORWARD int yaml_parser_parse(yaml_parser_t *parser, yaml_event_t *event) {
    REAL(tether_libyaml, yaml_parser_parse)
    return yaml_parser_parse_found(parser, event);
}

FORWARD void yaml_event_delete(yaml_event_t *event) {
    REAL(tether_libyaml, yaml_event_delete)
    yaml_event_delete_found(event);
}

FORWARD void yaml_parser_delete(yaml_parser_t *parser) {
    REAL(tether_libyaml, yaml_parser_delete)
    yaml_parser_delete_found(parser);
}

#endif
