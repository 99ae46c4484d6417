# One image for every process of the site: web (gunicorn), the Celery workers, beat, migrate.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=webplatform.settings STATIC_ROOT=/app/staticfiles \
    PROBLEM_CACHE_DIR=/var/cache/arena/problems

WORKDIR /app
COPY requirements.lock .
# JAX_CUDA=cuda12 builds the GPU worker's image (jax with its CUDA plugin); empty: CPU only.
ARG JAX_CUDA=""
RUN pip install --no-cache-dir -r requirements.lock \
    && if [ -n "$JAX_CUDA" ]; then pip install --no-cache-dir "jax[$JAX_CUDA]==0.10.2"; fi

COPY . .
# The static files are collected at build time; whitenoise serves them from the image.
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput -v0 \
    && useradd --system --create-home arena \
    && mkdir -p /var/cache/arena/problems && chown -R arena /var/cache/arena
USER arena

EXPOSE 8000
# gunicorn's ASGI worker, as `python -m devstack run --layout asgi` serves the site: a learner waiting
# for a verdict holds a stream, not a thread (`make run` puts nginx in front of threads for the pages).
CMD ["gunicorn", "-k", "asgi", "webplatform.asgi:application", "--bind", "0.0.0.0:8000", "--workers", "2", \
     "--access-logfile", "-"]
