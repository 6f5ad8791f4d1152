#ifndef PIER_CCURL_H
#define PIER_CCURL_H

#include <curl/curl.h>

// libcurl's option setters are variadic, which Swift cannot call: one typed wrapper per argument kind. Nothing else
// lives here; the transfers, the multi handle's loop and every decision are Swift's (Sources/APNs).

typedef size_t (*pier_curl_data_callback)(char *data, size_t size, size_t count, void *context);

CURLcode pier_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode pier_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode pier_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode pier_curl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode pier_curl_easy_setopt_callback(CURL *handle, CURLoption option, pier_curl_data_callback callback);
CURLcode pier_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode pier_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);
CURLMcode pier_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

#endif
