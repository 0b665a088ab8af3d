// libxml2's parser, text writer and XML Schema validation, without ICU (Debian builds libxml2 with ICU, whose headers
// clash with Foundation).
#ifndef TETHER_CLIBXML2_SHIM_H
#define TETHER_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlwriter.h>
#include <libxml/xmlsave.h>
#include <libxml/parser.h>
// xmlCreateMemoryParserCtxt: a parse whose document outlives a failure (XMLElementNode.read looks at its DTD).
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlschemastypes.h>

#endif
