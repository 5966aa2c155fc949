// libpng and libjpeg-turbo behind a small C interface that reports errors by return value.
//
// Both libraries report errors by longjmp (libpng's error handler, libjpeg's error_exit).
// A longjmp must land in a frame that called setjmp, in C: Swift cannot call setjmp, and a
// longjmp across Swift frames is undefined. So the calls into the libraries live here, each
// under a setjmp, and every error becomes a return code and a message.

#ifndef IMAGE_CODECS_H
#define IMAGE_CODECS_H

#include <stddef.h>

/// The result of a decode: 8-bit RGBA pixels, row after row, allocated with malloc.
typedef struct {
  int width;
  int height;
  unsigned char *pixels;
  /// The EXIF orientation (1 to 8) of a JPEG image, 1 when it has none or for a PNG image.
  int orientation;
  /// What went wrong, when a call returns non-zero.
  char message[256];
} codec_image;

/// Return codes.
enum {
  CODEC_OK = 0,
  /// The data is damaged, truncated, or not of the format.
  CODEC_INVALID = 1,
  /// Valid, but larger than the pixel limit: width and height are set.
  CODEC_TOO_LARGE = 2,
  /// Valid, but of a kind that is not decoded (a CMYK JPEG image).
  CODEC_UNSUPPORTED = 3,
};

/// Decodes a PNG image of any colour type, bit depth and interlacing, palettes and tRNS
/// included, to 8-bit RGBA; gamma is ignored. The size is checked against `max_pixels` from
/// the header, before anything is allocated for the pixels.
int codec_png_decode(const unsigned char *data, size_t size, long long max_pixels,
                     codec_image *out);

/// Decodes a baseline or progressive JPEG image, greyscale, colour or CMYK (converted as
/// Pillow converts it), to 8-bit RGBA, and reads its EXIF orientation. Data that libjpeg would
/// warn about (truncated, corrupt) is an error, and so is a file whose scans times its pixels
/// pass `max_pixel_scans`, as they are read. With `min_side` above 0, the image is decoded at
/// 1/2, 1/4 or 1/8 of its size (libjpeg's scaled inverse DCT, which averages) as long as its
/// longer side stays at least `min_side`.
int codec_jpeg_decode(const unsigned char *data, size_t size, long long max_pixels,
                      long long max_pixel_scans, int min_side, codec_image *out);

/// Reads a PNG or JPEG image's header only: its width, height and (JPEG) EXIF orientation in
/// `out`, no pixels. Returns what the decode functions return for the header.
int codec_read_size(const unsigned char *data, size_t size, codec_image *out);

/// Encodes a PNG image from samples in the file's own layout (one row after another, each
/// sample `bit_depth` bits, rows padded to whole bytes; 16-bit samples big-endian), for tests
/// and tools. `palette` holds `palette_count` RGB triples; `trans` the tRNS bytes.
int codec_png_encode(const unsigned char *samples, int width, int height, int color_type,
                     int bit_depth, int interlaced, const unsigned char *palette,
                     int palette_count, const unsigned char *trans, int trans_count,
                     unsigned char **out, size_t *out_size, char *message);

/// Encodes a JPEG image from 8-bit samples with `components` channels (1 grey, 3 RGB, 4 CMYK),
/// baseline or progressive, with an EXIF orientation when `orientation` is 1 to 8.
int codec_jpeg_encode(const unsigned char *samples, int width, int height, int components,
                      int progressive, int quality, int orientation, unsigned char **out,
                      size_t *out_size, char *message);

/// Frees what the functions above allocated.
void codec_free(void *pointer);

#endif
