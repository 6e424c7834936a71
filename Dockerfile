# The arena's one image: the site (gunicorn), the workers (celery) and the scheduler (beat).
# Configuration comes from environment variables at run time (see docker-compose.yml).
FROM python:3.11-slim

# bubblewrap sandboxes the bots; node runs the JavaScript sample bot.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap nodejs npm \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=webui.settings \
    ARENA_DATA_DIR=/data \
    ARENA_STATIC_ROOT=/app/static

WORKDIR /app
# Installed editable: the sample bots and protos are found next to the package.
COPY pyproject.toml README.md ./
COPY arena ./arena
COPY webui ./webui
COPY workers ./workers
COPY protos ./protos
COPY sample_bots ./sample_bots
COPY manage.py ./
RUN pip install --no-cache-dir -e . \
    && python -m arena.protocol.build \
    && (cd sample_bots/js-random && npm ci --omit=dev --no-audit --no-fund) \
    && ARENA_SECRET_KEY=collectstatic-only ARENA_DATA_DIR=/tmp/build-data \
       python manage.py collectstatic --noinput \
    && rm -rf /tmp/build-data \
    && useradd --create-home --uid 1000 arena \
    && mkdir -p /data && chown arena:arena /data

USER arena
VOLUME ["/data"]
EXPOSE 8000
# Threaded workers (webui/gunicorn_conf.py); put nginx in front as docker-compose.yml does.
CMD ["gunicorn", "-c", "python:webui.gunicorn_conf", "webui.wsgi"]
