#include <libxml/xmlversion.h>
/* Debian's libxml2 is built with ICU, and its encoding.h then includes the system ICU headers. Foundation
   brings its own ICU module (_FoundationICU) whose UErrorCode differs, and Clang refuses a module that sees
   both. Pier never touches the ICU converter fields of xmlCharEncodingHandler, so hide them. */
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>


/* `xmlFree` is a macro over a thread-local function pointer in threaded builds; Swift cannot call macros. */
static inline void pier_xml_free(void *pointer) {
    xmlFree(pointer);
}
