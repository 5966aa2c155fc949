#include "image_codecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <pthread.h>
#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

void codec_free(void *pointer) { free(pointer); }

// MARK: - Loading the libraries

// libpng and libjpeg are loaded the first time a picture is read or written, not at every
// start: most `catalog` processes show none, and loading both (with their symbols bound)
// took about 0.1 ms of each. Each function called below is found once in its library and
// called through a pointer of its own declared type, under its own name.

#define CODEC_PNG_FUNCTIONS(X) \
  X(png_create_info_struct) \
  X(png_create_read_struct) \
  X(png_create_write_struct) \
  X(png_destroy_read_struct) \
  X(png_destroy_write_struct) \
  X(png_error) \
  X(png_get_error_ptr) \
  X(png_get_image_height) \
  X(png_get_image_width) \
  X(png_get_io_ptr) \
  X(png_get_rowbytes) \
  X(png_longjmp) \
  X(png_read_end) \
  X(png_read_image) \
  X(png_read_info) \
  X(png_read_update_info) \
  X(png_set_IHDR) \
  X(png_set_PLTE) \
  X(png_set_add_alpha) \
  X(png_set_crc_action) \
  X(png_set_expand) \
  X(png_set_gray_to_rgb) \
  X(png_set_interlace_handling) \
  X(png_set_longjmp_fn) \
  X(png_set_read_fn) \
  X(png_set_scale_16) \
  X(png_set_tRNS) \
  X(png_set_user_limits) \
  X(png_set_write_fn) \
  X(png_sig_cmp) \
  X(png_write_end) \
  X(png_write_image) \
  X(png_write_info)

#define CODEC_JPEG_FUNCTIONS(X) \
  X(jpeg_CreateCompress) \
  X(jpeg_CreateDecompress) \
  X(jpeg_destroy_compress) \
  X(jpeg_destroy_decompress) \
  X(jpeg_finish_compress) \
  X(jpeg_finish_decompress) \
  X(jpeg_mem_dest) \
  X(jpeg_mem_src) \
  X(jpeg_read_header) \
  X(jpeg_read_scanlines) \
  X(jpeg_save_markers) \
  X(jpeg_set_defaults) \
  X(jpeg_set_quality) \
  X(jpeg_simple_progression) \
  X(jpeg_start_compress) \
  X(jpeg_start_decompress) \
  X(jpeg_std_error) \
  X(jpeg_write_marker) \
  X(jpeg_write_scanlines)

#define CODEC_POINTER(name) __typeof__(name) *name;
static struct {
  CODEC_PNG_FUNCTIONS(CODEC_POINTER)
  CODEC_JPEG_FUNCTIONS(CODEC_POINTER)
} loaded;
#undef CODEC_POINTER

typedef struct {
  const char *soname;
  pthread_once_t once;
  char failure[200];
} codec_library;

static codec_library png_library = {"libpng16.so.16", PTHREAD_ONCE_INIT, ""};
static codec_library jpeg_library = {"libjpeg.so.62", PTHREAD_ONCE_INIT, ""};

#define CODEC_FIND(name)                                                                  \
  if (!library->failure[0] && !(*(void **)&loaded.name = dlsym(handle, #name))) {         \
    snprintf(library->failure, sizeof library->failure, "%s has no %s; reinstall it",     \
             library->soname, #name);                                                     \
  }

static void *codec_open(codec_library *library) {
  void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    snprintf(library->failure, sizeof library->failure, "cannot load %s (%s); install it",
             library->soname, dlerror());
  }
  return handle;
}

static void codec_load_png(void) {
  codec_library *library = &png_library;
  void *handle = codec_open(library);
  if (handle) { CODEC_PNG_FUNCTIONS(CODEC_FIND) }
}

static void codec_load_jpeg(void) {
  codec_library *library = &jpeg_library;
  void *handle = codec_open(library);
  if (handle) { CODEC_JPEG_FUNCTIONS(CODEC_FIND) }
}

/// Loads a library once per process; false, with why in `message` (256 bytes), when it cannot.
static int codec_ready(codec_library *library, void (*load)(void), char *message) {
  pthread_once(&library->once, load);
  if (!library->failure[0]) return 1;
  if (message) snprintf(message, 256, "%s", library->failure);
  return 0;
}

#define png_create_info_struct loaded.png_create_info_struct
#define png_create_read_struct loaded.png_create_read_struct
#define png_create_write_struct loaded.png_create_write_struct
#define png_destroy_read_struct loaded.png_destroy_read_struct
#define png_destroy_write_struct loaded.png_destroy_write_struct
#define png_error loaded.png_error
#define png_get_error_ptr loaded.png_get_error_ptr
#define png_get_image_height loaded.png_get_image_height
#define png_get_image_width loaded.png_get_image_width
#define png_get_io_ptr loaded.png_get_io_ptr
#define png_get_rowbytes loaded.png_get_rowbytes
#define png_longjmp loaded.png_longjmp
#define png_read_end loaded.png_read_end
#define png_read_image loaded.png_read_image
#define png_read_info loaded.png_read_info
#define png_read_update_info loaded.png_read_update_info
#define png_set_IHDR loaded.png_set_IHDR
#define png_set_PLTE loaded.png_set_PLTE
#define png_set_add_alpha loaded.png_set_add_alpha
#define png_set_crc_action loaded.png_set_crc_action
#define png_set_expand loaded.png_set_expand
#define png_set_gray_to_rgb loaded.png_set_gray_to_rgb
#define png_set_interlace_handling loaded.png_set_interlace_handling
#define png_set_longjmp_fn loaded.png_set_longjmp_fn
#define png_set_read_fn loaded.png_set_read_fn
#define png_set_scale_16 loaded.png_set_scale_16
#define png_set_tRNS loaded.png_set_tRNS
#define png_set_user_limits loaded.png_set_user_limits
#define png_set_write_fn loaded.png_set_write_fn
#define png_sig_cmp loaded.png_sig_cmp
#define png_write_end loaded.png_write_end
#define png_write_image loaded.png_write_image
#define png_write_info loaded.png_write_info
#define jpeg_CreateCompress loaded.jpeg_CreateCompress
#define jpeg_CreateDecompress loaded.jpeg_CreateDecompress
#define jpeg_destroy_compress loaded.jpeg_destroy_compress
#define jpeg_destroy_decompress loaded.jpeg_destroy_decompress
#define jpeg_finish_compress loaded.jpeg_finish_compress
#define jpeg_finish_decompress loaded.jpeg_finish_decompress
#define jpeg_mem_dest loaded.jpeg_mem_dest
#define jpeg_mem_src loaded.jpeg_mem_src
#define jpeg_read_header loaded.jpeg_read_header
#define jpeg_read_scanlines loaded.jpeg_read_scanlines
#define jpeg_save_markers loaded.jpeg_save_markers
#define jpeg_set_defaults loaded.jpeg_set_defaults
#define jpeg_set_quality loaded.jpeg_set_quality
#define jpeg_simple_progression loaded.jpeg_simple_progression
#define jpeg_start_compress loaded.jpeg_start_compress
#define jpeg_start_decompress loaded.jpeg_start_decompress
#define jpeg_std_error loaded.jpeg_std_error
#define jpeg_write_marker loaded.jpeg_write_marker
#define jpeg_write_scanlines loaded.jpeg_write_scanlines

// MARK: - PNG

typedef struct {
  const unsigned char *data;
  size_t size;
  size_t offset;
} png_source;

static void png_fail(png_structp png, png_const_charp text) {
  codec_image *image = png_get_error_ptr(png);
  if (image) snprintf(image->message, sizeof image->message, "%s", text);
  png_longjmp(png, 1);
}

static void png_quiet(png_structp png, png_const_charp text) {
  (void)png;
  (void)text;
}

static void png_read_memory(png_structp png, png_bytep into, png_size_t length) {
  png_source *source = png_get_io_ptr(png);
  if (source->size - source->offset < length) png_error(png, "the file is truncated");
  memcpy(into, source->data + source->offset, length);
  source->offset += length;
}

/// Reads a PNG file's header from memory. Chunks with bad checksums are errors, ancillary
/// ones too: a damaged file is never shown.
static void png_start(png_structp png, png_infop info, png_source *source) {
  png_set_read_fn(png, source, png_read_memory);
  png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
  png_read_info(png, info);
}

int codec_png_decode(const unsigned char *data, size_t size, long long max_pixels,
                     codec_image *out) {
  memset(out, 0, sizeof *out);
  out->orientation = 1;
  if (!codec_ready(&png_library, codec_load_png, out->message)) return CODEC_UNSUPPORTED;
  if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
    snprintf(out->message, sizeof out->message, "it does not start as a PNG file does");
    return CODEC_INVALID;
  }
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, out, png_fail, png_quiet);
  if (!png) return CODEC_INVALID;
  png_infop info = png_create_info_struct(png);
  png_source source = {data, size, 0};
  unsigned char *volatile pixels = NULL;
  png_bytep *volatile rows = NULL;
  volatile int result = CODEC_INVALID;
  if (setjmp(png_jmpbuf(png))) {
    free(pixels);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return result;
  }
  if (!info) png_error(png, "out of memory");
  png_start(png, info, &source);
  png_uint_32 width = png_get_image_width(png, info);
  png_uint_32 height = png_get_image_height(png, info);
  if ((long long)width * (long long)height > max_pixels) {
    out->width = (int)width;
    out->height = (int)height;
    snprintf(out->message, sizeof out->message, "too large");
    result = CODEC_TOO_LARGE;
    png_longjmp(png, 1);
  }
  // Every colour type and depth to 8-bit RGBA: palettes and low depths expanded, tRNS as
  // alpha, 16 bits scaled, grey made colour, an opaque alpha added where there is none.
  png_set_expand(png);
  png_set_scale_16(png);
  png_set_gray_to_rgb(png);
  png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != (size_t)width * 4) png_error(png, "unexpected row size");
  pixels = malloc((size_t)width * height * 4);
  rows = malloc(sizeof(png_bytep) * height);
  if (!pixels || !rows) png_error(png, "out of memory");
  for (png_uint_32 row = 0; row < height; row++) rows[row] = pixels + (size_t)row * width * 4;
  png_read_image(png, rows);
  png_read_end(png, NULL);
  free(rows);
  png_destroy_read_struct(&png, &info, NULL);
  out->width = (int)width;
  out->height = (int)height;
  out->pixels = pixels;
  return CODEC_OK;
}

typedef struct {
  unsigned char *data;
  size_t size;
  size_t capacity;
} png_sink;

static void png_write_memory(png_structp png, png_bytep bytes, png_size_t length) {
  png_sink *sink = png_get_io_ptr(png);
  if (sink->size + length > sink->capacity) {
    size_t capacity = (sink->capacity + length) * 2;
    unsigned char *grown = realloc(sink->data, capacity);
    if (!grown) png_error(png, "out of memory");
    sink->data = grown;
    sink->capacity = capacity;
  }
  memcpy(sink->data + sink->size, bytes, length);
  sink->size += length;
}

static void png_flush_memory(png_structp png) { (void)png; }

int codec_png_encode(const unsigned char *samples, int width, int height, int color_type,
                     int bit_depth, int interlaced, const unsigned char *palette,
                     int palette_count, const unsigned char *trans, int trans_count,
                     unsigned char **out, size_t *out_size, char *message) {
  if (!codec_ready(&png_library, codec_load_png, message)) return CODEC_UNSUPPORTED;
  codec_image errors;
  memset(&errors, 0, sizeof errors);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &errors, png_fail, png_quiet);
  if (!png) return CODEC_INVALID;
  png_infop info = png_create_info_struct(png);
  png_sink sink = {NULL, 0, 0};
  png_bytep *volatile rows = NULL;
  if (setjmp(png_jmpbuf(png))) {
    free(rows);
    free(sink.data);
    png_destroy_write_struct(&png, &info);
    snprintf(message, 256, "%s", errors.message);
    return CODEC_INVALID;
  }
  if (!info) png_error(png, "out of memory");
  png_set_write_fn(png, &sink, png_write_memory, png_flush_memory);
  png_set_IHDR(png, info, width, height, bit_depth, color_type,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (palette_count > 0) {
    png_color colors[256];
    for (int index = 0; index < palette_count && index < 256; index++) {
      colors[index].red = palette[3 * index];
      colors[index].green = palette[3 * index + 1];
      colors[index].blue = palette[3 * index + 2];
    }
    png_set_PLTE(png, info, colors, palette_count);
  }
  if (trans_count > 0) {
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
      png_set_tRNS(png, info, trans, trans_count, NULL);
    } else {
      png_color_16 color = {0};
      color.gray = (png_uint_16)((trans[0] << 8) | trans[1]);
      if (trans_count >= 6) {
        color.red = (png_uint_16)((trans[0] << 8) | trans[1]);
        color.green = (png_uint_16)((trans[2] << 8) | trans[3]);
        color.blue = (png_uint_16)((trans[4] << 8) | trans[5]);
      }
      png_set_tRNS(png, info, NULL, 0, &color);
    }
  }
  png_write_info(png, info);
  size_t stride = png_get_rowbytes(png, info);
  rows = malloc(sizeof(png_bytep) * height);
  if (!rows) png_error(png, "out of memory");
  for (int row = 0; row < height; row++) rows[row] = (png_bytep)samples + (size_t)row * stride;
  png_write_image(png, rows);
  png_write_end(png, NULL);
  free(rows);
  png_destroy_write_struct(&png, &info);
  *out = sink.data;
  *out_size = sink.size;
  return CODEC_OK;
}

// MARK: - JPEG

typedef struct {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
  char *message;
  int warned;
} jpeg_errors;

static void jpeg_fail(j_common_ptr info) {
  jpeg_errors *errors = (jpeg_errors *)info->err;
  char text[JMSG_LENGTH_MAX];
  (*info->err->format_message)(info, text);
  snprintf(errors->message, 256, "%s", text);
  longjmp(errors->jump, 1);
}

/// Whether a warning is one viewers pass over and the picture is whole: bytes between segments
/// (a Motion-JPEG frame, some cameras), an unknown JFIF revision or Adobe transform, a bad ICC
/// profile.
static int jpeg_warning_is_harmless(int code) {
  return code == JWRN_EXTRANEOUS_DATA || code == JWRN_JFIF_MAJOR || code == JWRN_ADOBE_XFORM ||
         code == JWRN_BOGUS_ICC;
}

static void jpeg_note(j_common_ptr info, int level) {
  jpeg_errors *errors = (jpeg_errors *)info->err;
  // Level -1 is a warning: corrupt or truncated data, which libjpeg would paper over, or
  // something harmless that viewers show the picture despite.
  if (level < 0 && jpeg_warning_is_harmless(info->err->msg_code)) return;
  if (level < 0 && !errors->warned) {
    errors->warned = 1;
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    snprintf(errors->message, 256, "%s", text);
  }
}

static unsigned read16(const unsigned char *bytes, int little) {
  return little ? (unsigned)(bytes[0] | bytes[1] << 8) : (unsigned)(bytes[0] << 8 | bytes[1]);
}

static unsigned long read32(const unsigned char *bytes, int little) {
  return little ? ((unsigned long)bytes[0] | (unsigned long)bytes[1] << 8 |
                   (unsigned long)bytes[2] << 16 | (unsigned long)bytes[3] << 24)
                : ((unsigned long)bytes[0] << 24 | (unsigned long)bytes[1] << 16 |
                   (unsigned long)bytes[2] << 8 | (unsigned long)bytes[3]);
}

/// The Orientation tag (0x0112) of an APP1 Exif segment's first directory, or 1; 0 when the
/// segment is not Exif (XMP, say).
static int exif_orientation(const unsigned char *data, unsigned length) {
  if (length < 14 || memcmp(data, "Exif\0\0", 6) != 0) return 0;
  const unsigned char *tiff = data + 6;
  unsigned long size = length - 6;
  int little;
  if (memcmp(tiff, "II*\0", 4) == 0) {
    little = 1;
  } else if (memcmp(tiff, "MM\0*", 4) == 0) {
    little = 0;
  } else {
    return 1;
  }
  unsigned long directory = read32(tiff + 4, little);
  if (directory < 8 || directory + 2 > size) return 1;
  unsigned count = read16(tiff + directory, little);
  for (unsigned entry = 0; entry < count; entry++) {
    unsigned long at = directory + 2 + 12 * (unsigned long)entry;
    if (at + 12 > size) return 1;
    if (read16(tiff + at, little) != 0x0112) continue;
    // A SHORT as the specification says, or a LONG as some writers store it.
    unsigned type = read16(tiff + at + 2, little);
    unsigned long value = type == 3   ? read16(tiff + at + 8, little)
                          : type == 4 ? read32(tiff + at + 8, little)
                                      : 1;
    return value >= 1 && value <= 8 ? (int)value : 1;
  }
  return 1;
}

/// Sets up an error manager that longjmps on errors and counts warnings as errors.
static void jpeg_errors_init(jpeg_errors *errors, j_common_ptr info, char *message) {
  memset(errors, 0, sizeof *errors);
  info->err = jpeg_std_error(&errors->manager);
  errors->manager.error_exit = jpeg_fail;
  errors->manager.emit_message = jpeg_note;
  errors->message = message;
}

/// The EXIF orientation of the first Exif APP1 segment `jpeg_save_markers` kept (an XMP one
/// may come before it), or 1.
static int saved_orientation(struct jpeg_decompress_struct *info) {
  for (jpeg_saved_marker_ptr marker = info->marker_list; marker; marker = marker->next) {
    if (marker->marker != JPEG_APP0 + 1) continue;
    int orientation = exif_orientation(marker->data, marker->data_length);
    if (orientation != 0) return orientation;
  }
  return 1;
}

/// The most scans a progressive JPEG may have, as `djpeg -maxscans`: real ones have about ten,
/// and thousands of tiny scans make a small file take seconds and hundreds of megabytes.
#define JPEG_MAX_SCANS 100
/// The most memory libjpeg may take for one decode (a progressive file keeps every
/// coefficient), besides the decoded pixels.
#define JPEG_MAX_MEMORY (512L << 20)

typedef struct {
  struct jpeg_progress_mgr manager;
  long long pixels;
  long long max_pixel_scans;
} jpeg_budget;

/// libjpeg's progress hook, called as it reads: stops a file with too many scans, or one whose
/// scans add up to too much work.
static void jpeg_check_budget(j_common_ptr info) {
  jpeg_errors *errors = (jpeg_errors *)info->err;
  jpeg_budget *budget = (jpeg_budget *)info->progress;
  if (!info->is_decompressor) return;
  long long scans = ((j_decompress_ptr)info)->input_scan_number;
  if (scans > JPEG_MAX_SCANS) {
    snprintf(errors->message, 256, "it has more than %d scans", JPEG_MAX_SCANS);
    longjmp(errors->jump, 1);
  }
  if (budget->pixels > 0 && scans > budget->max_pixel_scans / budget->pixels) {
    snprintf(errors->message, 256,
             "it takes too much work to decode (%lld scans of %lld pixels; the limit is %lld "
             "pixels read)",
             scans, budget->pixels, budget->max_pixel_scans);
    longjmp(errors->jump, 1);
  }
}

/// Turns a row of CMYK samples into RGBA in place, as Pillow does: Adobe's files (those with
/// its APP14 marker, which is nearly all) store inverted samples; then each colour is
/// (255 - K) less its ink's share of it, rounded as Pillow's `MULDIV255`.
static void cmyk_to_rgba(unsigned char *row, JDIMENSION width, int inverted) {
  for (JDIMENSION x = 0; x < width; x++) {
    unsigned char *pixel = row + 4 * (size_t)x;
    int k = inverted ? 255 - pixel[3] : pixel[3];
    int nk = 255 - k;
    for (int channel = 0; channel < 3; channel++) {
      int ink = inverted ? 255 - pixel[channel] : pixel[channel];
      int product = ink * nk + 128;
      int value = nk - (((product >> 8) + product) >> 8);
      pixel[channel] = (unsigned char)(value < 0 ? 0 : value > 255 ? 255 : value);
    }
    pixel[3] = 255;
  }
}

int codec_jpeg_decode(const unsigned char *data, size_t size, long long max_pixels,
                      long long max_pixel_scans, int min_side, codec_image *out) {
  memset(out, 0, sizeof *out);
  out->orientation = 1;
  if (!codec_ready(&jpeg_library, codec_load_jpeg, out->message)) return CODEC_UNSUPPORTED;
  if (size < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF) {
    snprintf(out->message, sizeof out->message, "it does not start as a JPEG file does");
    return CODEC_INVALID;
  }
  struct jpeg_decompress_struct info;
  jpeg_errors errors;
  jpeg_errors_init(&errors, (j_common_ptr)&info, out->message);
  unsigned char *volatile pixels = NULL;
  volatile int result = CODEC_INVALID;
  if (setjmp(errors.jump)) {
    free(pixels);
    jpeg_destroy_decompress(&info);
    return result;
  }
  jpeg_create_decompress(&info);
  info.mem->max_memory_to_use = JPEG_MAX_MEMORY;
  jpeg_budget budget = {{jpeg_check_budget, 0, 0, 0, 0}, 0, max_pixel_scans};
  info.progress = &budget.manager;
  jpeg_mem_src(&info, data, (unsigned long)size);
  jpeg_save_markers(&info, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&info, TRUE);
  budget.pixels = (long long)info.image_width * (long long)info.image_height;
  // Print and design work hands over CMYK (and YCCK, which libjpeg turns into CMYK).
  int cmyk = info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK;
  if ((long long)info.image_width * (long long)info.image_height > max_pixels) {
    out->width = (int)info.image_width;
    out->height = (int)info.image_height;
    snprintf(out->message, sizeof out->message, "too large");
    result = CODEC_TOO_LARGE;
    longjmp(errors.jump, 1);
  }
  out->orientation = saved_orientation(&info);
  info.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
  if (min_side > 0) {
    unsigned longer = info.image_width > info.image_height ? info.image_width : info.image_height;
    unsigned denominator = 8;
    while (denominator > 1 && longer / denominator < (unsigned)min_side) denominator /= 2;
    info.scale_num = 1;
    info.scale_denom = denominator;
  }
  jpeg_start_decompress(&info);
  size_t stride = (size_t)info.output_width * 4;
  pixels = malloc(stride * info.output_height);
  if (!pixels) {
    snprintf(out->message, sizeof out->message, "out of memory");
    longjmp(errors.jump, 1);
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = pixels + stride * info.output_scanline;
    if (jpeg_read_scanlines(&info, &row, 1) == 1 && cmyk) {
      cmyk_to_rgba(row, info.output_width, info.saw_Adobe_marker);
    }
  }
  jpeg_finish_decompress(&info);
  if (errors.warned) longjmp(errors.jump, 1);
  out->width = (int)info.output_width;
  out->height = (int)info.output_height;
  jpeg_destroy_decompress(&info);
  out->pixels = pixels;
  return CODEC_OK;
}

int codec_read_size(const unsigned char *data, size_t size, codec_image *out) {
  memset(out, 0, sizeof *out);
  out->orientation = 1;
  static const unsigned char png_signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  if (size >= 8 && memcmp(data, png_signature, 8) == 0) {
    if (!codec_ready(&png_library, codec_load_png, out->message)) return CODEC_UNSUPPORTED;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, out, png_fail, png_quiet);
    if (!png) return CODEC_INVALID;
    png_infop info = png_create_info_struct(png);
    png_source source = {data, size, 0};
    if (setjmp(png_jmpbuf(png))) {
      png_destroy_read_struct(&png, &info, NULL);
      return CODEC_INVALID;
    }
    if (!info) png_error(png, "out of memory");
    png_start(png, info, &source);
    out->width = (int)png_get_image_width(png, info);
    out->height = (int)png_get_image_height(png, info);
    png_destroy_read_struct(&png, &info, NULL);
    return CODEC_OK;
  }
  if (size < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF) {
    snprintf(out->message, sizeof out->message, "not a PNG or JPEG image");
    return CODEC_INVALID;
  }
  if (!codec_ready(&jpeg_library, codec_load_jpeg, out->message)) return CODEC_UNSUPPORTED;
  struct jpeg_decompress_struct info;
  jpeg_errors errors;
  jpeg_errors_init(&errors, (j_common_ptr)&info, out->message);
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&info);
    return CODEC_INVALID;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, data, (unsigned long)size);
  jpeg_save_markers(&info, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&info, TRUE);
  out->width = (int)info.image_width;
  out->height = (int)info.image_height;
  out->orientation = saved_orientation(&info);
  jpeg_destroy_decompress(&info);
  return CODEC_OK;
}

int codec_jpeg_encode(const unsigned char *samples, int width, int height, int components,
                      int progressive, int quality, int orientation, unsigned char **out,
                      size_t *out_size, char *message) {
  if (!codec_ready(&jpeg_library, codec_load_jpeg, message)) return CODEC_UNSUPPORTED;
  struct jpeg_compress_struct info;
  jpeg_errors errors;
  memset(&errors, 0, sizeof errors);
  errors.message = message;
  info.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_fail;
  unsigned char *volatile buffer = NULL;
  unsigned long size = 0;
  if (setjmp(errors.jump)) {
    jpeg_destroy_compress(&info);
    free(buffer);
    return CODEC_INVALID;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, (unsigned char **)&buffer, &size);
  info.image_width = (JDIMENSION)width;
  info.image_height = (JDIMENSION)height;
  info.input_components = components;
  info.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 4 ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  if (progressive) jpeg_simple_progression(&info);
  jpeg_start_compress(&info, TRUE);
  if (orientation >= 1 && orientation <= 8) {
    // A little-endian TIFF directory with one entry: Orientation, a SHORT.
    unsigned char exif[] = {'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0,
                            0x12, 0x01, 3, 0, 1, 0, 0, 0, (unsigned char)orientation, 0, 0, 0,
                            0, 0, 0, 0};
    jpeg_write_marker(&info, JPEG_APP0 + 1, exif, sizeof exif);
  }
  size_t stride = (size_t)width * components;
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = (JSAMPROW)samples + stride * info.next_scanline;
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  *out = buffer;
  *out_size = size;
  return CODEC_OK;
}
