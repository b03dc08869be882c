//! Build stage 2 (icon): the site's icon, a database cylinder, drawn from
//! one description as `/favicon.svg` (what pages declare) and rasterised
//! into `/favicon.ico` (what browsers ask for when a page declares none).

/// The cylinder on a 32-unit square: half its width, its centre, the
/// height of its ends' ellipses, and the centres of its top and bottom ends.
const HALF_WIDTH: f64 = 12.0;
const CENTRE: f64 = 16.0;
const END_HEIGHT: f64 = 5.0;
const TOP: f64 = 8.0;
const BOTTOM: f64 = 24.0;
/// The two seams drawn across it, as the centres of their ellipses, and
/// their width.
const SEAMS: [f64; 2] = [8.0, 16.0];
const SEAM_WIDTH: f64 = 1.6;
/// Its colour (the pages' link colour) as RGB.
const BLUE: [u8; 3] = [0x05, 0x50, 0xae];

/// `/favicon.svg`.
pub(crate) fn svg() -> String {
    let (a, h) = (HALF_WIDTH, END_HEIGHT);
    let (left, right) = (CENTRE - a, CENTRE + a);
    let seams: String = SEAMS
        .iter()
        .map(|y| format!("M{left} {y}a{a} {h} 0 0 0 {w} 0", w = 2.0 * a))
        .collect();
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\">\
         <path fill=\"#{:02x}{:02x}{:02x}\" d=\"M{left} {TOP}a{a} {h} 0 0 1 {w} 0V{BOTTOM}a{a} {h} 0 0 1 -{w} 0z\"/>\
         <path fill=\"none\" stroke=\"#fff\" stroke-width=\"{SEAM_WIDTH}\" d=\"{seams}\"/></svg>\n",
        BLUE[0],
        BLUE[1],
        BLUE[2],
        w = right - left,
    )
}

/// How much of the point `(x, y)` is blue and how much white: `None` outside.
fn paint(x: f64, y: f64) -> Option<bool> {
    let across = (x - CENTRE) / HALF_WIDTH;
    if across.abs() > 1.0 {
        return None;
    }
    let in_end = |centre: f64| across * across + ((y - centre) / END_HEIGHT).powi(2) <= 1.0;
    if !((TOP..=BOTTOM).contains(&y) || in_end(TOP) || in_end(BOTTOM)) {
        return None;
    }
    let bulge = END_HEIGHT * (1.0 - across * across).sqrt();
    let on_seam = SEAMS
        .iter()
        .any(|centre| (y - (centre + bulge)).abs() <= SEAM_WIDTH / 2.0);
    Some(on_seam)
}

/// `/favicon.ico`: one 32×32 image, 32 bits a pixel, anti-aliased by
/// sampling each pixel 4×4 times.
pub(crate) fn ico() -> Vec<u8> {
    const SIZE: usize = 32;
    const SAMPLES: usize = 4;
    let mut pixels = Vec::with_capacity(SIZE * SIZE * 4);
    // Bottom-up rows of BGRA, as a DIB stores them.
    for row in (0..SIZE).rev() {
        for column in 0..SIZE {
            let (mut blue, mut white) = (0u32, 0u32);
            for i in 0..SAMPLES {
                for j in 0..SAMPLES {
                    let x = column as f64 + (i as f64 + 0.5) / SAMPLES as f64;
                    let y = row as f64 + (j as f64 + 0.5) / SAMPLES as f64;
                    match paint(x, y) {
                        Some(false) => blue += 1,
                        Some(true) => white += 1,
                        None => {}
                    }
                }
            }
            let covered = blue + white;
            let channel = |c: u8| {
                (u32::from(c) * blue + 255 * white)
                    .checked_div(covered)
                    .map_or(0, |mixed| mixed as u8)
            };
            let alpha = (255 * covered / (SAMPLES * SAMPLES) as u32) as u8;
            pixels.extend_from_slice(&[
                channel(BLUE[2]),
                channel(BLUE[1]),
                channel(BLUE[0]),
                alpha,
            ]);
        }
    }
    let mask = vec![0u8; SIZE * SIZE / 8]; // rows of 32 bits: no padding
    let image_size = 40 + pixels.len() + mask.len();
    let mut ico = Vec::with_capacity(22 + image_size);
    // ICONDIR: reserved, type 1 (icon), one image.
    ico.extend_from_slice(&[0, 0, 1, 0, 1, 0]);
    // ICONDIRENTRY: width, height, no palette, reserved, 1 plane, 32 bits,
    // the image's size and offset.
    ico.extend_from_slice(&[SIZE as u8, SIZE as u8, 0, 0, 1, 0, 32, 0]);
    ico.extend_from_slice(&(image_size as u32).to_le_bytes());
    ico.extend_from_slice(&22u32.to_le_bytes());
    // BITMAPINFOHEADER: the height counts the colour rows and the mask's.
    ico.extend_from_slice(&40u32.to_le_bytes());
    ico.extend_from_slice(&(SIZE as i32).to_le_bytes());
    ico.extend_from_slice(&(2 * SIZE as i32).to_le_bytes());
    ico.extend_from_slice(&1u16.to_le_bytes());
    ico.extend_from_slice(&32u16.to_le_bytes());
    ico.extend_from_slice(&[0; 24]); // no compression, sizes and palette left to the reader
    ico.extend_from_slice(&pixels);
    ico.extend_from_slice(&mask);
    ico
}
