// libxml2's functions that Tether calls, each opening libxml2 at the first call (loader.c says why and how).
#include "loader.h"

#if defined(__linux__)
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlschemastypes.h>

FORWARD void xmlInitParser(void) {
    REAL(tether_libxml2, xmlInitParser)
    xmlInitParser_found();
}

FORWARD void xmlSetExternalEntityLoader(xmlExternalEntityLoader loader) {
    REAL(tether_libxml2, xmlSetExternalEntityLoader)
    xmlSetExternalEntityLoader_found(loader);
}

FORWARD void xmlSetStructuredErrorFunc(void *context, xmlStructuredErrorFunc handler) {
    REAL(tether_libxml2, xmlSetStructuredErrorFunc)
    xmlSetStructuredErrorFunc_found(context, handler);
}

FORWARD void xmlResetLastError(void) {
    REAL(tether_libxml2, xmlResetLastError)
    xmlResetLastError_found();
}

FORWARD xmlDocPtr xmlReadMemory(const char *buffer, int size, const char *url, const char *encoding, int options) {
    REAL(tether_libxml2, xmlReadMemory)
    return xmlReadMemory_found(buffer, size, url, encoding, options);
}

FORWARD xmlParserCtxtPtr xmlCreateMemoryParserCtxt(const char *buffer, int size) {
    REAL(tether_libxml2, xmlCreateMemoryParserCtxt)
    return xmlCreateMemoryParserCtxt_found(buffer, size);
}

FORWARD int xmlCtxtUseOptions(xmlParserCtxtPtr context, int options) {
    REAL(tether_libxml2, xmlCtxtUseOptions)
    return xmlCtxtUseOptions_found(context, options);
}

FORWARD int xmlParseDocument(xmlParserCtxtPtr context) {
    REAL(tether_libxml2, xmlParseDocument)
    return xmlParseDocument_found(context);
}

FORWARD void xmlFreeParserCtxt(xmlParserCtxtPtr context) {
    REAL(tether_libxml2, xmlFreeParserCtxt)
    xmlFreeParserCtxt_found(context);
}

FORWARD xmlDocPtr xmlCopyDoc(xmlDocPtr document, int recursive) {
    REAL(tether_libxml2, xmlCopyDoc)
    return xmlCopyDoc_found(document, recursive);
}

FORWARD void xmlFreeDoc(xmlDocPtr document) {
    REAL(tether_libxml2, xmlFreeDoc)
    xmlFreeDoc_found(document);
}

FORWARD xmlNodePtr xmlDocGetRootElement(const xmlDoc *document) {
    REAL(tether_libxml2, xmlDocGetRootElement)
    return xmlDocGetRootElement_found(document);
}

FORWARD long xmlGetLineNo(const xmlNode *node) {
    REAL(tether_libxml2, xmlGetLineNo)
    return xmlGetLineNo_found(node);
}

FORWARD xmlChar *xmlNodeListGetString(xmlDocPtr document, const xmlNode *list, int inLine) {
    REAL(tether_libxml2, xmlNodeListGetString)
    return xmlNodeListGetString_found(document, list, inLine);
}

// void in libxml2 2.9, int from 2.11: the header's own return type.
FORWARD __typeof__(xmlSchemaInitTypes()) xmlSchemaInitTypes(void) {
    REAL(tether_libxml2, xmlSchemaInitTypes)
    return xmlSchemaInitTypes_found();
}

FORWARD xmlSchemaParserCtxtPtr xmlSchemaNewDocParserCtxt(xmlDocPtr document) {
    REAL(tether_libxml2, xmlSchemaNewDocParserCtxt)
    return xmlSchemaNewDocParserCtxt_found(document);
}

FORWARD void xmlSchemaSetParserStructuredErrors(xmlSchemaParserCtxtPtr context, xmlStructuredErrorFunc handler,
                                                void *handlerContext) {
    REAL(tether_libxml2, xmlSchemaSetParserStructuredErrors)
    xmlSchemaSetParserStructuredErrors_found(context, handler, handlerContext);
}

FORWARD xmlSchemaPtr xmlSchemaParse(xmlSchemaParserCtxtPtr context) {
    REAL(tether_libxml2, xmlSchemaParse)
    return xmlSchemaParse_found(context);
}

FORWARD void xmlSchemaFreeParserCtxt(xmlSchemaParserCtxtPtr context) {
    REAL(tether_libxml2, xmlSchemaFreeParserCtxt)
    xmlSchemaFreeParserCtxt_found(context);
}

FORWARD void xmlSchemaFree(xmlSchemaPtr schema) {
    REAL(tether_libxml2, xmlSchemaFree)
    xmlSchemaFree_found(schema);
}

FORWARD xmlSchemaValidCtxtPtr xmlSchemaNewValidCtxt(xmlSchemaPtr schema) {
    REAL(tether_libxml2, xmlSchemaNewValidCtxt)
    return xmlSchemaNewValidCtxt_found(schema);
}

FORWARD void xmlSchemaSetValidStructuredErrors(xmlSchemaValidCtxtPtr context, xmlStructuredErrorFunc handler,
                                               void *handlerContext) {
    REAL(tether_libxml2, xmlSchemaSetValidStructuredErrors)
    xmlSchemaSetValidStructuredErrors_found(context, handler, handlerContext);
}

FORWARD int xmlSchemaValidateDoc(xmlSchemaValidCtxtPtr context, xmlDocPtr document) {
    REAL(tether_libxml2, xmlSchemaValidateDoc)
    return xmlSchemaValidateDoc_found(context, document);
}

FORWARD void xmlSchemaFreeValidCtxt(xmlSchemaValidCtxtPtr context) {
    REAL(tether_libxml2, xmlSchemaFreeValidCtxt)
    xmlSchemaFreeValidCtxt_found(context);
}

#endif
